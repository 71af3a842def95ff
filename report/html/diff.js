// diff.js — the page of `ringprof diff --html`: a differential flame graph of the two sides'
// merged stacks (frames matched by name and object), each frame as wide as its share of one
// side's total and coloured by the change of its share (new share minus baseline share, each of
// its own side's total: red grew, blue shrank), and the diff's table. No request of any kind.
'use strict';
/* global fixed, loadData, expandNodes, inputsText, FRAME_ROW, paintFrames, frameRowTop, hookFrames -- common.js, before this script */

loadData() // common.js, as expandNodes()
	.then(showDiff)
	.catch((e) => {
		document.getElementById('summary').textContent = 'cannot show the comparison: ' + e.message;
		document.body.dataset.error = e.message;
	});

function showDiff(D) {
	const $ = (id) => document.getElementById(id);
	const MATCH_COLOUR = '#e040c0'; // frames the search matches, as on the report's page
	const MIN_PCT = 0.05; // frames narrower than this share of the view are not drawn
	const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
	const fmt = (x) => fixed(x, 2);
	const signed = (x) => (x >= 0 ? '+' : '') + fixed(x, 2);
	const [totalB, totalN] = D.totals;

	// ---- the merged tree: a node per (parent, frame); weights of the stacks through it ----
	// (common.js: expandNodes()).
	const tree = expandNodes(D.node_ups, D.node_frames);
	const nNodes = tree.n, parent = tree.parent, frame = tree.frame;
	const frameObjs = Array.from(D.frame_objs, (o) => (o >= 0 ? D.objs[o] : ''));
	const frameNames = D.frame_names;
	const wB = new Float64Array(nNodes), wN = new Float64Array(nNodes);
	for (let i = 0, at = 0; i < D.leaf_places.length; i++) {
		at += D.leaf_places[i];
		wB[at] += D.leaf_base[i];
		wN[at] += D.leaf_new[i];
	}
	// Depth first, a parent comes before its children: one pass from the end adds them up.
	for (let i = nNodes - 1; i >= 0; i--)
		if (parent[i] >= 0) {
			wB[parent[i]] += wB[i];
			wN[parent[i]] += wN[i];
		}
	const name = (i) => frameNames[frame[i]];
	const obj = (i) => frameObjs[frame[i]];
	const kids = Array.from({ length: nNodes + 1 }, () => []); // nNodes: the root, every sample
	for (let i = 0; i < nNodes; i++) kids[parent[i] >= 0 ? parent[i] : nNodes].push(i);
	for (const k of kids) k.sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
	const parentOf = (i) => (i === nNodes ? -1 : parent[i] >= 0 ? parent[i] : nNodes);
	const shareB = (i) => (i === nNodes ? 100 : (100 * wB[i]) / totalB);
	const shareN = (i) => (i === nNodes ? 100 : (100 * wN[i]) / totalN);
	const delta = (i) => shareN(i) - shareB(i);
	let maxAbs = 0;
	for (let i = 0; i < nNodes; i++) maxAbs = Math.max(maxAbs, Math.abs(delta(i)));
	// Red for a share that grew, blue for one that shrank, the deeper the larger the change;
	// white when it did not move (a change under 0.005 points prints as 0.00).
	const colour = (d) => {
		const t = maxAbs > 0 ? Math.min(1, Math.abs(d) / maxAbs) : 0;
		const c = Math.round(245 - 190 * Math.sqrt(t));
		return Math.abs(d) < 0.005 ? 'rgb(245,245,245)' : d > 0 ? 'rgb(245,' + c + ',' + c + ')' : 'rgb(' + c + ',' + c + ',245)';
	};
	const trend = (d) => (Math.abs(d) < 0.005 ? 'same' : d > 0 ? 'grew' : 'shrank');

	const state = { widthBy: 'new', zoom: nNodes, marked: null };
	let matcher = null;

	// ---- the flame graph ----
	function draw() {
		const el = $('flame');
		const w = state.widthBy === 'new' ? shareN : shareB;
		const base = w(state.zoom) || 1;
		const items = [];
		for (let n = parentOf(state.zoom); n >= 0; n = parentOf(n)) items.unshift([n, 0, 100, true]);
		const depth0 = items.length;
		let maxDepth = depth0;
		const walk = (n, left, depth) => {
			const width = (100 * w(n)) / base;
			if (width < MIN_PCT) return;
			items.push([n, left, width, false, depth]);
			maxDepth = Math.max(maxDepth, depth);
			let x = left;
			for (const k of n === nNodes ? kids[nNodes] : kids[n]) {
				walk(k, x, depth + 1);
				x += (100 * w(k)) / base;
			}
		};
		walk(state.zoom, 0, depth0);
		items.forEach((it, i) => {
			if (it[3]) it[4] = i;
		});
		// Painted on a canvas as the report's page paints its graphs (common.js).
		el._items = items;
		el._up = true;
		el._height = (maxDepth + 1) * FRAME_ROW;
		el._rowOf = (it) => it[4];
		paintFrames(el, ([n]) => {
			const d = n === nNodes ? 0 : delta(n), label = n === nNodes ? 'all' : name(n);
			const match = isMatch(n);
			return [match ? MATCH_COLOUR : colour(d), label, false, isMarked(n), match];
		});
		const zoomed = state.zoom === nNodes ? '' : 'zoomed into ' + name(state.zoom) + ', ';
		el._canvas.setAttribute('aria-label', 'differential flame graph: ' + zoomed + items.length + ' frames drawn');
		showSearch();
	}
	const isMatch = (n) => typeof matcher === 'function' && n !== nNodes && matcher(name(n));
	const isMarked = (n) => !!(state.marked && n !== nNodes && state.marked(n));
	function tip(ev, n) {
		const t = $('tooltip');
		const lines = n === nNodes ? ['<b>all</b>', 'baseline: ' + D.samples[0] + ' samples, new: ' + D.samples[1]] : ['<b>' + esc(name(n)) + '</b>', obj(n) ? 'object: ' + esc(obj(n)) : 'command', 'baseline: ' + fmt(shareB(n)) + '% of its total', 'new: ' + fmt(shareN(n)) + '% of its total', 'change: ' + signed(delta(n)) + ' points (' + trend(delta(n)) + ')'];
		t.innerHTML = lines.join('<br>');
		t.hidden = false;
		t.style.left = Math.min(ev.clientX + 12, window.innerWidth - t.offsetWidth - 4) + 'px';
		t.style.top = (ev.clientY + 16 + t.offsetHeight > window.innerHeight ? ev.clientY - t.offsetHeight - 8 : ev.clientY + 16) + 'px';
	}
	hookFrames(
		$('flame'),
		(ev, it) => tip(ev, it[0]),
		() => ($('tooltip').hidden = true),
		(it) => {
			state.zoom = it[0];
			draw();
		},
	);
	// The frames drawn, as plain data for the tests (window.ringprof.frames()): name, object,
	// left and width in % of the graph's width, row (0: the root), dimmed, the change in points,
	// its trend and colour, matched, marked, the middle of the frame on the screen.
	function drawnFrames() {
		const el = $('flame');
		const r = el.getBoundingClientRect(), W = el.clientWidth || 1;
		return (el._items || []).map(([n, left, width, dim, row]) => {
			const d = n === nNodes ? 0 : delta(n);
			return { name: n === nNodes ? 'all' : name(n), obj: n === nNodes ? '' : obj(n), left, width, row, dim, delta: fmt(d), trend: trend(d), colour: colour(d), match: isMatch(n), selected: isMarked(n), x: r.left + el.clientLeft + ((left + width / 2) * W) / 100, y: r.top + el.clientTop + frameRowTop(el, row) + FRAME_ROW / 2 };
		});
	}
	window.ringprof = { frames: drawnFrames };

	// ---- search ----
	function makeMatcher(text) {
		if (!text) return null;
		const m = /^\/(.*)\/$/.exec(text);
		if (!m) return (s) => s.includes(text);
		try {
			const re = new RegExp(m[1]);
			return (s) => re.test(s);
		} catch (e) {
			return 'bad';
		}
	}
	function showSearch() {
		const out = $('search-result');
		if (matcher === 'bad') return void (out.textContent = 'not a valid regular expression');
		if (!matcher) return void (out.textContent = '');
		// The weight of the stacks through a matching frame, each stack once: the outermost
		// matching nodes.
		let b = 0, n = 0;
		const visit = (i) => {
			if (i !== nNodes && matcher(name(i))) {
				b += wB[i];
				n += wN[i];
				return;
			}
			for (const k of kids[i]) visit(k);
		};
		visit(nNodes);
		const d = (100 * n) / totalN - (100 * b) / totalB;
		out.innerHTML = 'matched: baseline <span id="search-base">' + fmt((100 * b) / totalB) + '%</span>, new <span id="search-new">' + fmt((100 * n) / totalN) + '%</span> (' + signed(d) + ' points)';
	}
	$('search').addEventListener('input', () => {
		matcher = makeMatcher($('search').value);
		if (matcher === 'bad') showSearch();
		else draw();
	});

	// ---- the table: ringprof diff's rows, computed as it computes them ----
	function renderTable() {
		$('table-head').innerHTML = '<th class="num">Baseline</th><th class="num">New</th><th class="num">Delta</th><th class="num">Ratio</th>' + D.keys.map((k) => '<th>' + esc(k) + '</th>').join('');
		const html = D.rows.map((r, i) => {
			const b = (100 * r[0]) / totalB, n = (100 * r[1]) / totalN, d = n - b;
			const ratio = !r[0] ? 'only new' : !r[1] ? 'only base' : fmt(n / b);
			return '<tr class="' + trend(d) + '" data-i="' + i + '"><td class="num">' + (r[0] ? fmt(b) + '%' : '') + '</td><td class="num">' + (r[1] ? fmt(n) + '%' : '') + '</td><td class="num delta" style="background:' + colour(d) + '">' + signed(d) + '</td><td class="num">' + ratio + '</td>' + r.slice(2).map((f) => '<td class="sym">' + esc(f) + '</td>').join('') + '</tr>';
		});
		document.querySelector('#table tbody').innerHTML = html.join('');
		$('table-note').textContent = D.rows.length ? D.rows.length + ' entries.' : 'No samples on either side.';
	}
	// A row clicked: the frames of its symbol (and object, where the keys have them) marked.
	document.querySelector('#table tbody').addEventListener('click', (ev) => {
		const tr = ev.target.closest('tr');
		if (!tr) return;
		const r = D.rows[+tr.dataset.i];
		const sym = D.keys.indexOf('Symbol'), dso = D.keys.indexOf('Shared Object');
		const want = sym >= 0 ? r[2 + sym].replace(/^\[.\] /, '') : null;
		state.marked = want === null ? null : (n) => name(n) === want && (dso < 0 || obj(n) === r[2 + dso]);
		for (const x of document.querySelectorAll('#table tbody tr.sel')) x.classList.remove('sel');
		tr.classList.add('sel');
		draw();
	});

	// ---- start ----
	$('header').textContent = D.header;
	$('summary').textContent = inputsText(D.inputs[0]) + ' → ' + inputsText(D.inputs[1]);
	$('summary').title = D.inputs[0].join('\n') + '\n→\n' + D.inputs[1].join('\n');
	document.title = 'ringprof diff · ' + inputsText(D.inputs[0]) + ' → ' + inputsText(D.inputs[1]);
	$('diff-legend').innerHTML = 'Each frame: as wide as its share of <span id="width-side">the new side</span>\'s total, coloured by the change of its share (the weight of the stacks through it, new share − baseline share, each of its own side\'s total): <span class="grew sw-l" style="background:' + colour(maxAbs) + '">red: grew</span> <span class="shrank sw-l" style="background:' + colour(-maxAbs) + '">blue: shrank</span>, the deeper the larger (the largest change ' + fmt(maxAbs) + ' points). Totals: baseline <span id="total-base">' + D.samples[0] + '</span> samples, new <span id="total-new">' + D.samples[1] + '</span> samples' + (D.time_weighted ? ' (weighted by time)' : '') + '.';
	for (const b of document.querySelectorAll('[data-width]'))
		b.addEventListener('click', () => {
			state.widthBy = b.dataset.width;
			for (const x of document.querySelectorAll('[data-width]')) x.classList.toggle('on', x === b);
			$('width-side').textContent = state.widthBy === 'new' ? 'the new side' : 'the baseline';
			draw();
		});
	$('zoom-reset').addEventListener('click', () => {
		state.zoom = nNodes;
		draw();
	});
	document.addEventListener('keydown', (ev) => {
		if (ev.key === 'Escape' && state.zoom !== nNodes) {
			state.zoom = parentOf(state.zoom);
			draw();
		}
	});
	renderTable();
	draw();
	requestAnimationFrame(() => (document.body.dataset.ready = '1'));
}
