// report-html.cjs — drives a `ringprof report --html` page in headless Chromium for
// tests/report-html.sh: acts as a user would (hover, click, type, drag) and prints what the
// page then shows, one "key value" line each; the shell test compares them with the text
// report. Any request other than the page itself is printed as "request URL" (the page must
// make none). Screenshots of each view go to OUTDIR.
// Usage: node report-html.cjs PAGE.html OUTDIR FUNC SEARCH SANDWICH_OF[,SANDWICH_OF...] [SEARCH...]
//        node report-html.cjs --marks PAGE.html OUTDIR NAME: the frames named NAME: their
//        share of the width, how many rows above their command each one sits, their objects
//        and widths.
//        node report-html.cjs --units PAGE.html OUTDIR: the timeline stacked by unit (its
//        legend), where the page offers it.
//        node report-html.cjs --paint PAGE.html OUTDIR: for bench/html-bench.sh, the times to
//        first contentful paint and to the views drawn, and of a zoom and its way back.
//        node report-html.cjs --annotate PAGE.html OUTDIR FUNC[,FUNC...] COLD: each FUNC's
//        frame clicked, what the source panel shows (its hottest line, share, text, file);
//        then COLD's table row clicked, the panel's note.
//        node report-html.cjs --spike PAGE.html OUTDIR FUNC [SLIVER]: SLIVER's frame, too narrow to
//        be an element, found by its tooltip; the timeline's tallest bucket and the
//        run of buckets around it at half its height or more, dragged over as a user would;
//        what the flame graph shows on top (the widest plateau: a frame's width less the frames
//        right above it) and the table's first row by Self, before and after.
//        node report-html.cjs --load URL OUTDIR: for bench/html-bench.sh, another tool's page
//        (go tool pprof -http's): ms until its load event and until the network is idle,
//        its first contentful paint; its requests are not this page's and are not printed.
//        node report-html.cjs --diff PAGE.html OUTDIR FUNC[,FUNC...]: a `diff --html` page: its
//        table's rows, each FUNC's frame (its change, colour, width) with the widths of either
//        side, a row's frames marked.
'use strict';
const path = require('path');
const { chromium } = require(path.join(__dirname, 'node_modules', 'playwright-core'));

const mode = process.argv[2].startsWith('--') ? process.argv[2] : '';
const marks = mode === '--marks';
const [page_path, outdir, func, search, sandwichOf, ...moreSearches] = process.argv.slice(mode ? 3 : 2);
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const out = (k, v) => console.log(k + ' ' + v);

// The frames graph ID draws, as the page hands them out (window.ringprof.frames(): the graphs
// are painted on a canvas, with no element per frame): name, obj, kind, left and width (% of
// the graph's width), row (0: the graph's root), dim, match, selected, x and y (the frame's
// middle on the screen).
function drawn(page, id) {
	return page.evaluate((id) => window.ringprof.frames(id), id);
}

// Zoomed out again, the flame graph is as tall as the rows drawn (no empty rows above it): the
// frame whose zoom draws the most rows (frames too narrow before now wide enough) zoomed into,
// then Reset zoom. Out: deep_zoom NAME ROWS-BEFORE ROWS-ZOOMED (none: no zoom draws more
// rows), unzoomed ROWS HEIGHT-IN-ROWS.
async function checkZoomOut(page) {
	const rows = async () => (await drawn(page, 'flame')).reduce((a, x) => Math.max(a, x.row + 1), 0);
	const height = () => page.evaluate(() => document.getElementById('flame').clientHeight / 18);
	const full = await rows();
	let best = null;
	for (const f of (await drawn(page, 'flame')).slice(0, 200)) {
		await page.mouse.click(f.x, f.y);
		const r = await rows();
		if (r > full && (!best || r > best.r)) best = { f, r };
		await page.click('#zoom-reset');
	}
	out('deep_zoom', best ? best.f.name + ' ' + full + ' ' + best.r : 'none ' + full + ' ' + full);
	if (best) {
		await page.mouse.click(best.f.x, best.f.y);
		await page.click('#zoom-reset');
	}
	out('unzoomed', (await rows()) + ' ' + (await height()));
}

// The share of graph ID's width that the frames named NAME take up, in % (frames dimmed as
// ancestors of the zoomed one left out).
async function frameShare(page, id, name) {
	const w = (await drawn(page, id)).filter((f) => !f.dim && f.name === name).reduce((a, f) => a + f.width, 0);
	return w.toFixed(3);
}

// The widest frame named NAME in graph ID (null: none drawn).
async function widest(page, id, name) {
	const fr = (await drawn(page, id)).filter((f) => f.name === name).sort((a, b) => b.width - a.width);
	return fr[0] || null;
}

// Frame FR of graph ID scrolled into the window, with where it is then.
async function onScreen(page, id, fr) {
	return page.evaluate(
		([id, fr]) => {
			if (fr.y < 20 || fr.y > window.innerHeight - 20) window.scrollBy(0, fr.y - window.innerHeight / 2);
			return window.ringprof.frames(id).find((f) => f.name === fr.name && f.row === fr.row && f.left === fr.left);
		},
		[id, fr],
	);
}

// The pointer moved onto frame FR of graph ID, or a click on it, where the page drew it, as
// a user's (the page finds the frame by position).
async function pointAt(page, id, fr) {
	const at = await onScreen(page, id, fr);
	await page.mouse.move(at.x, at.y);
}
async function clickFrame(page, id, fr) {
	const at = await onScreen(page, id, fr);
	await page.mouse.click(at.x, at.y);
}

// --marks: where the frames named NAME sit: "mark_rows" lists, for each, how many rows above
// the frame of its command it is (1: right above, where a stack's outermost frame goes).
async function checkMarks(page, name) {
	out('mark_pct', await frameShare(page, 'flame', name));
	const fr = await drawn(page, 'flame');
	const comms = fr.filter((f) => f.kind === 'c');
	const rows = fr
		.filter((f) => f.name === name)
		.map((f) => {
			const x = f.left + f.width / 2;
			const c = comms.find((c) => c.left <= x && c.left + c.width >= x);
			return c ? f.row - c.row : -1;
		});
	out('mark_rows', rows.join(','));
	out('mark_objs', fr.filter((f) => f.name === name).map((f) => f.obj).join(','));
	out('mark_widths', fr.filter((f) => f.name === name).map((f) => f.width.toFixed(3)).join(','));
}

// The page's own timings (ms from navigation start), then zooms into the widest frame of
// the third row and back out: ms from the click until the next frame is painted.
async function measurePaint(page) {
	const t = await page.evaluate(() => {
		const fcp = performance.getEntriesByName('first-contentful-paint')[0];
		const ready = performance.getEntriesByName('ringprof-painted')[0];
		return { fcp: fcp ? fcp.startTime : -1, ready: ready ? ready.startTime : -1, nodes: window.ringprof ? window.ringprof.frames('flame').length : document.querySelectorAll('#flame .fr').length, stacks: document.body.dataset.stacks };
	});
	out('first_contentful_paint_ms', t.fcp.toFixed(0));
	out('phases_ms', await page.evaluate(() => ['ringprof-data', 'ringprof-stacks', 'ringprof-aggregated', 'ringprof-table', 'ringprof-tree', 'ringprof-drawn', 'ringprof-painted'].map((m) => { const e = performance.getEntriesByName(m)[0]; return m.replace('ringprof-', '') + ':' + (e ? e.startTime.toFixed(0) : '-'); }).join(',')));
	out('views_drawn_ms', t.ready.toFixed(0));
	out('frames_drawn', t.nodes);
	out('stacks', t.stacks);
	// Ten times: a click on the widest frame of the third row, then on Reset zoom. Each: ms
	// until the click's script returned, and until the frame it changed was rendered (a message
	// posted from that frame's animation-frame callback has run); the medians.
	const runs = await page.evaluate(async () => {
		const paint = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
		// The rendering of the next frame (style, layout, paint): from its animation-frame
		// callbacks to a message posted there, which runs once the frame is done.
		const render = () =>
			new Promise((done) =>
				requestAnimationFrame(() => {
					const t = performance.now(), ch = new MessageChannel();
					ch.port1.onmessage = () => done(performance.now() - t);
					ch.port2.postMessage(0);
				}),
			);
		// Pages of before the graphs were painted on a canvas (for comparison): a frame was an
		// element.
		const oldPageRow = () => {
			const fr = [...document.querySelectorAll('#flame .fr')];
			const tops = [...new Set(fr.map((d) => d.offsetTop))].sort((a, b) => b - a);
			return fr
				.filter((d) => d.offsetTop === tops[2])
				.sort((a, b) => b.offsetWidth - a.offsetWidth)
				.map((el) => ({ el }));
		};
		const res = { in: [], inJs: [], out: [], outJs: [], inWork: [], outWork: [] };
		for (let i = 0; i < 10; i++)
			for (const which of ['in', 'out']) {
				const row = window.ringprof
					? window.ringprof
							.frames('flame')
							.filter((f) => f.row === 2)
							.sort((a, b) => b.width - a.width)
					: oldPageRow();
				if (!row.length) return null;
				const target = document.querySelector('#flame canvas');
				const click = () =>
					which === 'out'
						? document.getElementById('zoom-reset').click()
						: row[0].el
							? row[0].el.click()
							: target.dispatchEvent(new MouseEvent('click', { bubbles: true, clientX: row[0].x, clientY: row[0].y }));
				const t0 = performance.now();
				click();
				const js = performance.now() - t0;
				res[which + 'Js'].push(js);
				const frame = await render();
				res[which + 'Work'].push(js + frame);
				res[which].push(performance.now() - t0);
				await paint();
			}
		return res;
	});
	const median = (v) => v.sort((a, b) => a - b)[v.length >> 1].toFixed(0);
	out('zoom_ms', runs ? median(runs.in) : -1);
	out('unzoom_ms', runs ? median(runs.out) : -1);
	out('zoom_script_ms', runs ? median(runs.inJs) + '/' + median(runs.outJs) : -1);
	// The main thread's work for a zoom: its script and the rendering of the frame it changed
	// (60 frames a second: within 16.7 ms).
	out('zoom_work_ms', runs ? median(runs.inWork) + '/' + median(runs.outWork) : -1);
}

// --annotate: the source panel of each function of FUNCS, selected by a click on its widest
// frame; then of COLD, selected from the table.
async function checkSource(page, funcs, cold, shot) {
	for (const fn of funcs) {
		const fr = await widest(page, 'flame', fn);
		if (fr) await clickFrame(page, 'flame', fr);
		const v = await page.evaluate(() => {
			const hot = document.querySelector('#source tr.hot');
			let file = hot ? hot.previousElementSibling : null;
			while (file && !file.classList.contains('file')) file = file.previousElementSibling;
			const cells = hot ? [...hot.cells].map((c) => c.innerText) : [];
			return {
				shown: !document.getElementById('source-box').hidden,
				title: document.getElementById('source-title').innerText,
				note: document.getElementById('source-note').innerText,
				hot: hot ? hot.dataset.line + ' ' + hot.dataset.pct : '',
				marker: cells[0] || '',
				text: cells[3] || '',
				file: file ? file.innerText : '',
				lines: document.querySelectorAll('#source tr.code').length,
				marked: document.querySelectorAll('#source tr.hot').length,
				all: [...document.querySelectorAll('#source tr.code')].map((r) => r.dataset.line + ':' + r.dataset.pct).join(','),
			};
		});
		out('source_shown_' + fn, v.shown);
		out('source_title_' + fn, v.title);
		out('source_note_' + fn, v.note.replace(/\n/g, ' '));
		out('source_hot_' + fn, v.hot);
		out('source_marker_' + fn, v.marker);
		out('source_text_' + fn, v.text.replace(/\n/g, ' '));
		out('source_file_' + fn, v.file.replace(/\n/g, ' '));
		out('source_lines_' + fn, v.lines);
		out('source_marked_' + fn, v.marked);
		out('source_all_' + fn, v.all);
		await shot('source-' + fn);
		await page.click('#zoom-reset');
	}
	const row = page.locator('#table tbody tr').filter({ has: page.locator('td.sym', { hasText: new RegExp('^' + cold + '$') }) }).first();
	await row.click();
	out('source_cold_note', (await page.locator('#source-note').innerText()).replace(/\n/g, ' '));
	out('source_cold_rows', await page.locator('#source tr').count());
}

// --diff: what the differential page shows.
async function checkDiff(page, funcs, shot) {
	const rows = await page.evaluate(() => [...document.querySelectorAll('#table tbody tr')].map((r) => r.className + '|' + [...r.cells].map((c) => c.innerText).join('|')));
	for (const r of rows) out('diff_row', r);
	out('diff_legend', (await page.locator('#diff-legend').innerText()).replace(/\n/g, ' '));
	out('diff_header', (await page.locator('#header').innerText()).replace(/\n/g, ' | '));
	// The graph is painted on a canvas: its frames read from window.ringprof.frames().
	const diffFrames = () => page.evaluate(() => window.ringprof.frames());
	const frameOf = async (fn) => {
		const fr = (await diffFrames()).filter((f) => f.name === fn).sort((a, b) => b.width - a.width);
		if (!fr.length) return 'none';
		const d = fr[0];
		// What the canvas shows there: a pixel inside the frame, left of its name.
		const pixel = await page.evaluate(([x, y]) => {
			const c = document.querySelector('#flame canvas'), r = c.getBoundingClientRect(), k = c.width / r.width;
			const p = c.getContext('2d').getImageData(Math.round((x - r.left) * k), Math.round((y - r.top) * k), 1, 1).data;
			return 'rgb(' + p[0] + ',' + p[1] + ',' + p[2] + ')';
		}, [d.x - (d.width / 2) * (await page.evaluate(() => document.getElementById('flame').clientWidth / 100)) + 1, d.y - 6]);
		return [d.delta, d.trend + (d.dim ? ' dim' : ''), d.colour.replace(/ /g, ''), d.width.toFixed(3), pixel].join(' ');
	};
	for (const fn of funcs) out('diff_frame_' + fn, await frameOf(fn));
	// Every frame drawn of each name: its object and width (code without a name is one frame
	// of its object at each place, not one per address).
	for (const fn of funcs)
		out(
			'diff_frames_' + fn,
			(await diffFrames())
				.filter((f) => f.name === fn)
				.map((f) => f.obj + '|' + f.width.toFixed(3))
				.join(','),
		);
	await shot('diff-flame');
	await page.click('[data-width="base"]');
	for (const fn of funcs) out('diff_frame_base_' + fn, await frameOf(fn));
	await shot('diff-flame-baseline');
	await page.click('[data-width="new"]');
	const fn = funcs[0];
	await page
		.locator('#table tbody tr')
		.filter({ has: page.locator('td.sym', { hasText: new RegExp(' ' + fn.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$') }) })
		.first()
		.click();
	out('diff_marked_' + fn, (await diffFrames()).filter((f) => f.selected).map((f) => f.name).join(','));
	await page.fill('#search', fn);
	out('diff_search_base', (await page.locator('#search-base').innerText()).replace('%', ''));
	out('diff_search_new', (await page.locator('#search-new').innerText()).replace('%', ''));
	out('diff_matched', (await diffFrames()).filter((f) => f.match).map((f) => f.name).join(','));
	await shot('diff-search');
	const named = (await diffFrames()).find((f) => f.name === fn && !f.dim);
	if (named) {
		await page.mouse.move(named.x, named.y);
		out('diff_tooltip_' + fn, (await page.locator('#tooltip').innerText()).replace(/\n/g, ' | '));
		await page.mouse.click(named.x, named.y);
	}
	const zoomed = (await diffFrames()).find((f) => f.name === fn && !f.dim);
	out('diff_zoom_' + fn, zoomed ? zoomed.width.toFixed(2) : 'none');
}

// The frame of the flame graph with the widest plateau (its width less that of the frames
// drawn right above it: what the eye takes for "on top"), as "name share-of-width".
async function flameTop(page) {
	const fr = (await drawn(page, 'flame')).filter((f) => !f.dim && /^[ukj?m]$/.test(f.kind));
	let best = null, bestW = -1;
	for (const d of fr) {
		let w = d.width;
		for (const e of fr) if (e.row === d.row + 1 && e.left >= d.left - 1e-6 && e.left + e.width <= d.left + d.width + 1e-6) w -= e.width;
		if (w > bestW) (bestW = w), (best = d);
	}
	return best ? best.name + ' ' + bestW.toFixed(3) : 'none';
}

// The table's first row (sorted by Self): "symbol command children self".
async function tableTop(page) {
	const cells = await page.locator('#table tbody tr').first().locator('td').allInnerTexts();
	return [cells[5], cells[3], cells[0].replace('%', ''), cells[1].replace('%', '')].join(' ');
}

// A frame named NAME drawn a few pixels wide (a sliver): its width, whether any element of
// the page has its name (none: frames are painted on the canvas), and the tooltip when the
// pointer is where the page drew it.
async function checkSliver(page, name) {
	const at = (await drawn(page, 'flame')).find((f) => f.name === name);
	if (!at) return out('sliver_' + name, 'not drawn');
	const W = await page.evaluate(() => document.getElementById('flame').clientWidth);
	out('sliver_px_' + name, ((at.width * W) / 100).toFixed(2));
	out('sliver_elements_' + name, await page.locator('#flame *', { hasText: new RegExp('^' + name.replace(/[^\w]/g, '\\$&') + '$') }).count());
	await pointAt(page, 'flame', at);
	out('sliver_tooltip_' + name, (await page.locator('#tooltip').innerText()).replace(/\n/g, ' | '));
}

// --spike: find the spike on the timeline, select it, say what the views show.
async function checkSpike(page, func, shot, sliver) {
	if (sliver) await checkSliver(page, sliver);
	await page.click('#table th[data-sort="self"]');
	out('full_flame_top', await flameTop(page));
	out('full_table_top', await tableTop(page));
	const cols = await page.evaluate(() => {
		const svg = document.getElementById('timeline');
		const n = +svg.getAttribute('viewBox').split(' ')[2];
		const h = new Float64Array(n);
		for (const r of svg.querySelectorAll('rect:not(#tl-sel)')) h[+r.getAttribute('x')] += +r.getAttribute('height');
		return { n, h: [...h] };
	});
	let top = 0;
	for (let b = 1; b < cols.n; b++) if (cols.h[b] > cols.h[top]) top = b;
	let b0 = top, b1 = top;
	while (b0 > 0 && cols.h[b0 - 1] >= cols.h[top] / 2) b0--;
	while (b1 + 1 < cols.n && cols.h[b1 + 1] >= cols.h[top] / 2) b1++;
	out('timeline_buckets', cols.n);
	out('spike_top_bucket', top);
	out('spike_buckets', b0 + '-' + (b1 + 1));
	const box = await page.locator('#timeline').boundingBox();
	const x = (b) => box.x + ((b + 0.5) * box.width) / cols.n, y = box.y + box.height / 2;
	await page.mouse.move(x(top), y);
	out('spike_tooltip', (await page.locator('#tooltip').innerText()).replace(/\n/g, ' | '));
	await page.mouse.move(x(b0), y);
	await page.mouse.down();
	await page.mouse.move(x(b1), y, { steps: 4 });
	await page.mouse.up();
	const ds = await page.evaluate(() => ({ ...document.querySelector('#timeline-box').dataset }));
	out('range_since_ns', ds.sinceNs);
	out('range_until_ns', ds.untilNs);
	out('range_buckets', ds.b0 + '-' + ds.b1);
	out('range_samples', await page.locator('#range-samples').innerText());
	out('range_text', await page.locator('#range-text').innerText());
	out('range_flame_top', await flameTop(page));
	out('range_flame_pct', await frameShare(page, 'flame', func));
	out('range_table_top', await tableTop(page));
	await shot('spike-range');
	await page.click('[data-view="icicle"]');
	await shot('spike-range-inverted');
}

async function main() {
	const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
	const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
	const url = mode === '--load' ? page_path : require('url').pathToFileURL(path.resolve(page_path)).href;
	page.on('request', (r) => {
		if (r.url() !== url && mode !== '--load') out('request', r.url());
	});
	page.on('pageerror', (e) => out('pageerror', e.message.replace(/\n/g, ' ')));
	page.on('console', (m) => {
		if (m.type() === 'error') out('console-error', m.text().replace(/\n/g, ' '));
	});
	if (mode === '--load') {
		const t0 = Date.now();
		await page.goto(page_path, { waitUntil: 'load', timeout: 300000 });
		out('load_ms', Date.now() - t0);
		await page.waitForLoadState('networkidle', { timeout: 300000 });
		out('idle_ms', Date.now() - t0);
		const fcp = await page.evaluate(() => {
			const e = performance.getEntriesByName('first-contentful-paint')[0];
			return e ? e.startTime.toFixed(0) : -1;
		});
		out('first_contentful_paint_ms', fcp);
		await page.screenshot({ path: path.join(outdir, 'load.png') });
		await browser.close();
		return;
	}
	const t0 = Date.now();
	await page.goto(url);
	await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
	out('ready_ms', Date.now() - t0);
	const shot = (name) => page.screenshot({ path: path.join(outdir, name + '.png'), fullPage: true });
	if (mode === '--units') {
		out('units_offered', await page.locator('[data-timeline-by="unit"]').isVisible());
		await page.click('[data-timeline-by="unit"]');
		out('units_legend', (await page.locator('#legend span').allInnerTexts()).join(','));
		await shot('timeline-by-unit');
		await browser.close();
		return;
	}
	if (mode === '--paint') {
		await measurePaint(page);
		await shot('bench');
		await browser.close();
		return;
	}
	if (mode === '--spike') {
		await shot('spike-hour');
		await checkSpike(page, func, shot, search);
		await browser.close();
		return;
	}
	if (mode === '--diff') {
		await checkDiff(page, func.split(','), shot);
		await browser.close();
		return;
	}
	if (mode === '--annotate') {
		await checkSource(page, func.split(','), search, shot);
		await browser.close();
		return;
	}
	if (marks) {
		await checkMarks(page, func);
		await shot('cut-stacks');
		await browser.close();
		return;
	}

	// Flame graph: the function's width, its tooltip, then a click zooms into it.
	out('flame_pct', await frameShare(page, 'flame', func));
	// The widest of its frames, as a user would point at it.
	const frame = await widest(page, 'flame', func);
	if (!frame) throw new Error(func + ': no frame drawn');
	await pointAt(page, 'flame', frame);
	out('tooltip', (await page.locator('#tooltip').innerText()).replace(/\n/g, ' | '));
	await shot('flame');
	await clickFrame(page, 'flame', frame);
	out('zoom_pct', await frameShare(page, 'flame', func));
	out('zoom_dimmed', (await drawn(page, 'flame')).filter((f) => f.dim).length);
	out('zoom_text', await page.locator('#flame-text').innerText());
	await shot('flame-zoomed');
	await page.click('#zoom-reset');
	await checkZoomOut(page);

	// A narrower window: the canvas painted again to the graph's width, the frame found where
	// it is now drawn.
	await page.setViewportSize({ width: 900, height: 1000 });
	await page.waitForFunction(() => {
		const el = document.getElementById('flame');
		return el.querySelector('canvas').width === Math.round(el.clientWidth * (window.devicePixelRatio || 1));
	});
	out('resized_pct', await frameShare(page, 'flame', func));
	await pointAt(page, 'flame', await widest(page, 'flame', func));
	out('resized_tooltip', (await page.locator('#tooltip').innerText()).replace(/\n/g, ' | '));
	await shot('flame-narrow');
	await page.setViewportSize({ width: 1400, height: 1000 });

	// Search: the share of samples with a matching frame, and with a matching leaf (Self).
	await page.fill('#search', search);
	out('search_total', (await page.locator('#search-total').innerText()).replace('%', ''));
	out('search_self', (await page.locator('#search-self').innerText()).replace('%', ''));
	out('search_matches', (await drawn(page, 'flame')).filter((f) => f.match).length);
	await shot('search');
	// Further searches (a regular expression, say): searchN_total and searchN_self.
	for (const [i, text] of moreSearches.entries()) {
		await page.fill('#search', text);
		out('search' + (i + 2) + '_total', (await page.locator('#search-total').innerText()).replace('%', ''));
		out('search' + (i + 2) + '_self', (await page.locator('#search-self').innerText()).replace('%', ''));
	}
	await page.fill('#search', '');

	// The table's row of the function: Children and Self as shown.
	const row = page.locator('#table tbody tr').filter({ has: page.locator('td.sym', { hasText: new RegExp('^' + func + '$') }) }).first();
	const cells = await row.locator('td').allInnerTexts();
	out('table_children', cells[0].replace('%', ''));
	out('table_self', cells[1].replace('%', ''));
	out('table_samples', cells[2]);

	// Inverted view.
	await page.click('[data-view="icicle"]');
	out('icicle_pct', await frameShare(page, 'flame', func));
	await shot('inverted');

	// Sandwich of each function of SANDWICHOF (comma-separated), selected from the table: the
	// callers right above it and the callees right below, with their share of the width.
	for (const fn of sandwichOf.split(',')) {
		const srow = page.locator('#table tbody tr').filter({ has: page.locator('td.sym', { hasText: new RegExp('^' + fn + '$') }) }).first();
		await srow.click();
		await page.click('[data-view="sandwich"]');
		// The row next to the function's own (row 0 of either graph).
		const next = async (id) =>
			(await drawn(page, id))
				.filter((f) => f.row === 1)
				.map((f) => f.name + ':' + f.width.toFixed(2))
				.join(',');
		out('sandwich_title_' + fn, await page.locator('#sandwich-title').innerText());
		out('sandwich_callers_' + fn, await next('callers'));
		out('sandwich_callees_' + fn, await next('callees'));
		await shot('sandwich-' + fn);
		await page.click('[data-view="flame"]');
	}

	// Timeline: drag over the second quarter, then the range's totals and the function's share.
	const box = await page.locator('#timeline').boundingBox();
	const y = box.y + box.height / 2;
	await page.mouse.move(box.x + box.width * 0.25, y);
	await page.mouse.down();
	await page.mouse.move(box.x + box.width * 0.4, y, { steps: 4 });
	await page.mouse.move(box.x + box.width * 0.5, y, { steps: 4 });
	await page.mouse.up();
	const ds = await page.evaluate(() => ({ ...document.querySelector('#timeline-box').dataset }));
	out('range_since_ns', ds.sinceNs);
	out('range_until_ns', ds.untilNs);
	out('range_buckets', ds.b0 + '-' + ds.b1);
	out('range_samples', await page.locator('#range-samples').innerText());
	out('range_text', await page.locator('#range-text').innerText());
	out('range_flame_pct', await frameShare(page, 'flame', func));
	await shot('timeline-range');
	await browser.close();
}

main().catch((e) => {
	out('error', String(e && e.stack ? e.stack : e).replace(/\n/g, ' '));
	process.exit(1);
});
