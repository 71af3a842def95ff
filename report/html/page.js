// page.js — the views of ringprof's HTML report: timeline, flame graph, inverted flame graph,
// sandwich, search and the function table, all computed here from the data element (stacks
// once each, their samples per time bucket). No framework and no request: the page stands
// alone.
'use strict';

/* global fixed, loadData, expandNodes, inputsText, FRAME_ROW, paintFrames, frameRowTop, hookFrames -- common.js, before this script */

// The shared nodes (common.js, expandNodes()), and the stacks: command and leaf node (a
// distance from the previous stack's). A stack is the path from its leaf node up to an
// outermost frame.
function expandStacks(D) {
	const { n, parent, frame } = expandNodes(D.node_ups, D.node_frames);
	const m = D.stack_comms.length;
	const comm = Int32Array.from(D.stack_comms), leaf = new Int32Array(m);
	for (let i = 0, at = 0; i < m; i++) leaf[i] = at += D.stack_leaves[i];
	return { n, m, parent, frame, comm, leaf };
}

// Rows as written (PREFIX_bucket, PREFIX_KEY, PREFIX_unit, PREFIX_samples, PREFIX_weight: in
// bucket order, the bucket a distance from the previous row's, a stack (KEY 'stack') a
// distance from the previous row's of the same bucket, the weight less samples times
// weight_unit) back to absolute numbers in typed arrays: KEY, BUCKET, UNIT, SAMPLES, WEIGHT (N
// of each). The timeline's series ('tl': by bucket, command and unit) and the stacks' counts
// ('count': by step of the range selection, stack and unit).
function expandRows(D, prefix, key) {
	const cb = D[prefix + '_bucket'], ck = D[prefix + '_' + key], cn = D[prefix + '_samples'], cw = D[prefix + '_weight'];
	const n = cb.length;
	const keys = new Int32Array(n), bucket = new Int32Array(n), weight = new Float64Array(n);
	let b = 0, k0 = 0;
	for (let k = 0; k < n; k++) {
		b += cb[k];
		k0 = key !== 'stack' || cb[k] || k === 0 ? ck[k] : k0 + ck[k];
		keys[k] = k0;
		bucket[k] = b;
		weight[k] = cw[k] + cn[k] * D.weight_unit;
	}
	return { n, [key]: keys, bucket, unit: D[prefix + '_unit'], samples: cn, weight };
}

// The frames, from their columns.
function expandFrames(D) {
	const out = new Array(D.frame_names.length);
	for (let i = 0; i < out.length; i++) {
		out[i] = { name: D.frame_names[i], obj: D.objs[D.frame_objs[i]] || '', kind: D.frame_kinds[i], flat: D.frame_flat[i] ? D.frame_flat[i] - 1 : i };
	}
	return out;
}

loadData()
	.then(show)
	.catch((e) => {
		document.getElementById('summary').textContent = 'cannot show the profile: ' + e.message;
		document.body.dataset.error = e.message;
	});

function show(D) {
	performance.mark('ringprof-data'); // decoded: the bench reads these marks
	const $ = (id) => document.getElementById(id);
	const ROW = FRAME_ROW; // px per frame row (common.js)
	const MIN_PCT = 0.05; // frames narrower than this share of the view are not drawn
	const MATCH_COLOUR = '#e040c0'; // frames the search matches
	// The frames' colours (the table's swatches and the legend: page.css).
	const KIND_COLOURS = { u: 'hsl(30, 85%, 62%)', k: 'hsl(205, 65%, 68%)', j: 'hsl(110, 50%, 60%)', '?': '#c8c8c8', m: '#c4aee6', c: '#e3e6ea', r: '#eef0f2' };

	// ---- the data ----
	const frames = expandFrames(D);
	const expanded = expandStacks(D);
	const nStacks = expanded.m, stackComm = expanded.comm, stackLeaf = expanded.leaf;
	const nodeParent = expanded.parent, nodeFrame = expanded.frame;
	document.body.dataset.stacks = nStacks;
	const prefix = prefixNodes(expanded);
	const counts = expandRows(D, 'count', 'stack'); // in step order
	const series = expandRows(D, 'tl', 'comm'); // in bucket order
	const nBuckets = Math.max(1, D.n_buckets || 1, series.n ? series.bucket[series.n - 1] + 1 : 1);
	// The range selection's step: the stacks' counts are kept per STEP buckets (more than one
	// where the page would have grown past its budget of counts), bucket b in step
	// floor((b + SHIFT) / STEP).
	const STEP = D.range_step || 1, SHIFT = D.range_shift || 0;
	const stepOf = (b) => Math.floor((b + SHIFT) / STEP);
	// The buckets [B0, B1) widened to whole steps.
	function snapRange(b0, b1) {
		return [Math.max(0, stepOf(b0) * STEP - SHIFT), Math.min(nBuckets, (stepOf(b1 - 1) + 1) * STEP - SHIFT)];
	}
	const timeWeighted = D.time_weighted;

	const state = { b0: 0, b1: nBuckets, view: 'flame', zoom: [], search: null, selected: null, timelineBy: 'comm' };
	let agg = null; // the range's aggregation (aggregate())

	// ---- numbers ----
	function pct(x, total) {
		return total > 0 ? (100 * x) / total : 0;
	}
	function fmtPct(x) {
		return fixed(x, 2) + '%';
	}
	function fmtWeight(w) {
		if (!timeWeighted) return '';
		if (w >= 1e9) return (w / 1e9).toFixed(3) + ' s';
		if (w >= 1e6) return (w / 1e6).toFixed(3) + ' ms';
		return (w / 1e3).toFixed(1) + ' µs';
	}
	function esc(s) {
		return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
	}

	// ---- time ----
	const originNs = BigInt(D.origin_s) * 1000000000n + BigInt(D.origin_ns);
	function bucketNs(b) {
		return originNs + BigInt(b) * BigInt(D.bucket_ns);
	}
	function fmtTime(ns, withDate) {
		const ms = Number(ns / 1000000n);
		const d = new Date(ms);
		const p = (n, w) => String(n).padStart(w || 2, '0');
		const t = p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds()) + '.' + p(d.getMilliseconds(), 3);
		return withDate ? d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + ' ' + t : t;
	}

	// ---- aggregation of a range of buckets ----
	// The first count of step S or later.
	function firstCount(b) {
		let lo = 0, hi = counts.n;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if (counts.bucket[mid] < b) lo = mid + 1;
			else hi = mid;
		}
		return lo;
	}
	function aggregate(b0, b1) {
		const n = nStacks;
		const w = new Float64Array(n), c = new Float64Array(n);
		let total = 0, samples = 0;
		const { stack, samples: cn, weight: cw } = counts;
		// The counts are in step order: those of the range (whole steps) are one run.
		for (let i = firstCount(stepOf(b0)), end = firstCount(stepOf(b1 - 1) + 1); i < end; i++) {
			w[stack[i]] += cw[i];
			c[stack[i]] += cn[i];
			total += cw[i];
			samples += cn[i];
		}
		flameWeights(w, c);
		return { w, c, total, samples, funcs: functions() };
	}

	// A function of a command (its flat frame), as one number.
	const funcKey = (comm, flat) => comm * frames.length + flat;

	// The shared prefixes of the stacks (nodes: parent, frame, in an order where a parent comes
	// before its children), each node's function (FLAT) and whether it is the outermost frame
	// of that function on its path (FIRST), and the stacks of each command.
	function prefixNodes(x) {
		const n = x.parent.length;
		const flat = new Int32Array(n), first = new Uint8Array(n);
		// The nodes are depth first: the path from the outermost frame to a node's parent is
		// on a stack, with how often each function is on it.
		const path = new Int32Array(n + 1), onPath = new Int32Array(frames.length);
		for (let k = 0, top = 0; k < n; k++) {
			flat[k] = frames[x.frame[k]].flat;
			while (top > 0 && path[top - 1] !== x.parent[k]) onPath[flat[path[--top]]]--;
			first[k] = onPath[flat[k]] === 0; // no caller is the same function: recursion counts once
			onPath[flat[k]]++;
			path[top++] = k;
		}
		// The stacks of each command (in typed arrays: a million stacks), the commands in the
		// order of their first stack.
		let nComms = 0;
		for (let s = 0; s < nStacks; s++) nComms = Math.max(nComms, stackComm[s] + 1);
		const start = new Int32Array(nComms + 1), sorted = new Int32Array(nStacks), order = [];
		for (let s = 0; s < nStacks; s++) start[stackComm[s] + 1]++;
		for (let c = 0; c < nComms; c++) start[c + 1] += start[c];
		const at = start.slice(0, nComms);
		for (let s = 0; s < nStacks; s++) {
			const c = stackComm[s];
			if (at[c] === start[c]) order.push(c);
			sorted[at[c]++] = s;
		}
		const byComm = new Map(order.map((c) => [c, sorted.subarray(start[c], start[c + 1])]));
		return { n, parent: x.parent, frame: x.frame, leaf: x.leaf, flat, first, byComm };
	}
	// The flame graph's nodes, built once: one per (command, prefix node) that the command's
	// stacks pass through, a parent before its children, each command's together: FPARENT
	// (-1: under the command), FPREFIX, FCOMM, FFUNC (its function of the command: FUNCCOMM, FUNCFRAME),
	// children in CSR (FKIDS from FKID0[i] to FKID0[i + 1]; a command's outermost in
	// COMMROOTS); STACKF each stack's leaf. For a range, FW the weight of the stacks through a
	// node, FC their samples, FS the weight of those ending there (flameWeights()).
	const flame = (function flameNodes() {
		const P = prefix;
		// The functions of each command, in two typed arrays (hundreds of thousands).
		let nFuncs = 0, funcComm = new Int32Array(1024), funcFrame = new Int32Array(1024);
		// Typed arrays, grown by half: millions of nodes, and no garbage to collect. A prefix
		// node shared by several commands is a flame node of each (the day set: 2.06 M flame
		// nodes for 1.84 M prefix nodes), so a quarter more from the start.
		let cap = P.n + (P.n >> 2) + 1024, n = 0;
		let fparent = new Int32Array(cap), fprefix = new Int32Array(cap), fcomm = new Int32Array(cap), ffunc = new Int32Array(cap);
		const grow = (a) => {
			const b = new Int32Array(cap);
			b.set(a);
			return b;
		};
		const stackF = new Int32Array(nStacks);
		const map = new Int32Array(P.n).fill(-1); // prefix node -> flame node, this command
		const funcOf = new Int32Array(frames.length).fill(-1); // flat frame -> function, this command
		const commRoots = new Map();
		const chain = [];
		for (const [comm, list] of P.byComm) {
			const first = n, flats = [], roots = [];
			for (const s of list) {
				let k = P.leaf[s];
				chain.length = 0;
				while (k >= 0 && map[k] < 0) {
					chain.push(k);
					k = P.parent[k];
				}
				let up = k >= 0 ? map[k] : -1;
				for (let j = chain.length - 1; j >= 0; j--) {
					const kk = chain[j], flat = P.flat[kk];
					if (funcOf[flat] < 0) {
						if (nFuncs === funcComm.length) {
							const c = new Int32Array(nFuncs * 2), f = new Int32Array(nFuncs * 2);
							c.set(funcComm);
							f.set(funcFrame);
							[funcComm, funcFrame] = [c, f];
						}
						funcComm[nFuncs] = comm;
						funcFrame[nFuncs] = flat;
						funcOf[flat] = nFuncs++;
						flats.push(flat);
					}
					if (n === cap) {
						cap += cap >> 1;
						[fparent, fprefix, fcomm, ffunc] = [grow(fparent), grow(fprefix), grow(fcomm), grow(ffunc)];
					}
					fparent[n] = up;
					fprefix[n] = kk;
					fcomm[n] = comm;
					ffunc[n] = funcOf[flat];
					if (up < 0) roots.push(n);
					map[kk] = up = n++;
				}
				stackF[s] = map[P.leaf[s]];
			}
			for (let i = first; i < n; i++) map[fprefix[i]] = -1; // this command's nodes
			for (const f of flats) funcOf[f] = -1;
			commRoots.set(comm, roots);
		}
		fparent = fparent.subarray(0, n);
		const kid0 = new Int32Array(n + 2), kids = new Int32Array(n);
		for (let i = 0; i < n; i++) if (fparent[i] >= 0) kid0[fparent[i] + 2]++;
		for (let i = 0; i < n; i++) kid0[i + 2] += kid0[i + 1];
		for (let i = 0; i < n; i++) if (fparent[i] >= 0) kids[kid0[fparent[i] + 1]++] = i;
		return { n, fparent, fprefix: fprefix.subarray(0, n), fcomm: fcomm.subarray(0, n), ffunc: ffunc.subarray(0, n), nFuncs, funcComm, funcFrame, kid0, kids, commRoots, stackF, FW: new Float64Array(n), FC: new Float64Array(n), FS: new Float64Array(n) };
	})();
	// The range's weights on the flame graph's nodes, from each stack's (W, C).
	function flameWeights(w, c) {
		const F = flame, FW = F.FW, FC = F.FC, FS = F.FS;
		FW.fill(0);
		FC.fill(0);
		FS.fill(0);
		for (let s = 0; s < nStacks; s++) {
			if (!w[s]) continue;
			const f = F.stackF[s];
			FW[f] += w[s];
			FC[f] += c[s];
			FS[f] += w[s];
		}
		for (let i = F.n - 1; i >= 0; i--) {
			const p = F.fparent[i];
			if (p >= 0) {
				FW[p] += FW[i];
				FC[p] += FC[i];
			}
		}
	}

	// Self and Children by (command, object, symbol) as the text report counts them: unknown
	// frames under their object's one [unknown], a function once per stack however often it
	// recurs (a node counts to Children where no caller is the same function).
	function functions() {
		const F = flame, nf = F.nFuncs;
		const self = new Float64Array(nf), children = new Float64Array(nf), samples = new Float64Array(nf);
		for (let i = 0; i < F.n; i++) {
			const fn = F.ffunc[i];
			self[fn] += F.FS[i];
			if (prefix.first[F.fprefix[i]]) {
				children[fn] += F.FW[i];
				samples[fn] += F.FC[i];
			}
		}
		const map = new Map();
		for (let fn = 0; fn < nf; fn++) {
			if (!children[fn] && !self[fn]) continue;
			const comm = F.funcComm[fn], frame = F.funcFrame[fn];
			map.set(funcKey(comm, frame), { comm, frame, self: self[fn], children: children[fn], samples: samples[fn] });
		}
		return map;
	}

	// ---- trees ----
	// A node: a frame (or the command, or everything) with its weight, samples and children.
	function node(key, frame, label, kind) {
		return { key, frame, label, kind, w: 0, c: 0, self: 0, kids: new Map(), parent: null, depth: 0 };
	}
	function child(parent, key, frame, label, kind) {
		let n = parent.kids.get(key);
		if (!n) {
			n = node(key, frame, label, kind);
			n.parent = parent;
			n.depth = parent.depth + 1;
			n.comm = parent.comm;
			parent.kids.set(key, n);
		}
		return n;
	}
	// Root at the bottom: everything, the command, then the outermost frame up to the leaf;
	// inverted: everything, the command, then the leaf, up to the outermost frame.
	// The inverted tree is built as it is drawn too: a node holds its cursors, the prefix nodes
	// its stacks are at on this level (with their weight and samples), and its children are
	// their callers, grouped by frame, when first asked for (kidsOf()).
	function buildTree(inverted) {
		if (!inverted) return buildFlame();
		const root = node('all', -1, 'all', 'r');
		for (const [comm, list] of prefix.byComm) {
			const cursors = cursorSet(); // the stacks' leaf prefix nodes
			let w = 0, c = 0;
			for (const s of list) {
				if (!agg.w[s]) continue;
				cursorAdd(cursors, stackLeaf[s], agg.w[s], agg.c[s]);
				w += agg.w[s];
				c += agg.c[s];
			}
			cursorsDone(cursors);
			if (!w) continue;
			const cn = child(root, 'c' + comm, -1, D.comms[comm], 'c');
			cn.comm = comm;
			cn.w = w;
			cn.c = c;
			cn.cursors = cursors;
			cn.lazy = true;
			root.w += w;
			root.c += c;
		}
		return root;
	}
	// Cursors: prefix nodes, each with a weight and samples, in three plain arrays: hundreds of
	// thousands of them at a command, and no small array or map for each to collect. Two
	// cursors at one node are one: cursorAt holds a node's place in the set being filled (a
	// node goes to one set in a pass), -1 again once the pass is done (cursorsDone()).
	let cursorAt = null;
	function cursorSet() {
		return { ids: [], w: [], c: [] };
	}
	function cursorAdd(cs, k, w, c) {
		if (!cursorAt) cursorAt = new Int32Array(prefix.n).fill(-1);
		const i = cursorAt[k];
		if (i < 0) {
			cursorAt[k] = cs.ids.length;
			cs.ids.push(k);
			cs.w.push(w);
			cs.c.push(c);
		} else {
			cs.w[i] += w;
			cs.c[i] += c;
		}
	}
	function cursorsDone(cs) {
		for (const k of cs.ids) cursorAt[k] = -1;
	}
	// An inverted node's children: the frames one level further from the leaves.
	function invertedKids(n) {
		const up = n.kind !== 'c'; // a command's children are the leaves themselves
		const { ids, w, c } = n.cursors;
		for (let i = 0; i < ids.length; i++) {
			const next = up ? nodeParent[ids[i]] : ids[i];
			if (next < 0) {
				n.self += w[i]; // the outermost frame: the stack ends here
				continue;
			}
			const f = nodeFrame[next];
			let ch = n.kids.get(f);
			if (!ch) {
				ch = child(n, f, f, frames[f].name, frames[f].kind);
				ch.cursors = cursorSet();
				ch.lazy = true;
			}
			ch.w += w[i];
			ch.c += c[i];
			cursorAdd(ch.cursors, next, w[i], c[i]);
		}
		n.cursors = null;
		// A child narrower than MIN_PCT of N is never drawn (as for the flame graph): its
		// cursors are not kept.
		for (const ch of n.kids.values()) {
			if (ch.cursors) cursorsDone(ch.cursors);
			if (ch.w < (n.w * MIN_PCT) / 100) {
				ch.cursors = null;
				ch.lazy = false;
			}
		}
	}

	// The flame graph from the flame nodes: the root and the commands now, a node's children when
	// they are first asked for (kidsOf()): only what is drawn is ever built.
	function buildFlame() {
		const root = node('all', -1, 'all', 'r'), F = flame;
		for (const [comm, roots] of F.commRoots) {
			let w = 0, c = 0;
			for (const f of roots) {
				w += F.FW[f];
				c += F.FC[f];
			}
			if (!w) continue;
			const cn = child(root, 'c' + comm, -1, D.comms[comm], 'c');
			cn.comm = comm;
			cn.w = w;
			cn.c = c;
			cn.roots = roots;
			cn.lazy = true;
			root.w += w;
			root.c += c;
		}
		return root;
	}
	// N's children: built now from the flame nodes if N is one (or a command) not yet expanded.
	function kidsOf(n) {
		if (n.lazy && n.sw) {
			n.lazy = false;
			sandwichKids(n);
		} else if (n.lazy && n.cursors) {
			n.lazy = false;
			invertedKids(n);
		} else if (n.lazy) {
			const F = flame;
			n.lazy = false;
			// A child narrower than MIN_PCT of N is never drawn (a graph is never wider than
			// its focus, and N's children are drawn only from N or a caller of it as the
			// focus): it only takes its place among them, as a name and a weight.
			const least = (n.w * MIN_PCT) / 100;
			n.all = []; // every child, in order: those drawn and the others
			const add = (f) => {
				if (!F.FW[f]) return;
				const fr = prefix.frame[F.fprefix[f]];
				if (F.FW[f] < least) {
					n.all.push({ label: frames[fr].name, w: F.FW[f] });
					return;
				}
				const k = child(n, fr, fr, frames[fr].name, frames[fr].kind);
				k.w = F.FW[f];
				k.c = F.FC[f];
				k.self = F.FS[f];
				k.fi = f;
				k.lazy = true;
				n.all.push(k);
			};
			if (n.roots) for (const f of n.roots) add(f);
			else for (let j = F.kid0[n.fi]; j < F.kid0[n.fi + 1]; j++) add(F.kids[j]);
		}
		return n.kids;
	}

	// The sandwich of function F (a flat frame) of command COMM: its callers (from F outwards,
	// at its outermost occurrence in each stack) and its callees (from F inwards), built as
	// they are drawn: a node holds its cursors, the flame nodes it stands for (with their
	// weight and samples), first F's outermost nodes; a node's children are the cursors'
	// callers (callers) or callees (callees) grouped by frame (sandwichKids()).
	function buildSandwich(sel) {
		const F = flame, cursors = new Map();
		let fn = -1;
		for (let i = 0; i < F.nFuncs && fn < 0; i++) if (F.funcComm[i] === sel.comm && F.funcFrame[i] === sel.frame) fn = i;
		let w = 0, c = 0, self = 0;
		for (let i = 0; fn >= 0 && i < F.n; i++)
			if (F.ffunc[i] === fn && F.FW[i] && prefix.first[F.fprefix[i]]) {
				cursors.set(i, [F.FW[i], F.FC[i]]);
				w += F.FW[i];
				c += F.FC[i];
				self += F.FS[i];
			}
		const root = (dir) => {
			const n = node('f', sel.frame, frames[sel.frame].name, frames[sel.frame].kind);
			Object.assign(n, { comm: sel.comm, w, c, self: dir === 'down' ? self : 0, cursors, sw: dir, lazy: true });
			return n;
		};
		return { callers: root('up'), callees: root('down') };
	}
	// A sandwich node's children: one step further from F.
	function sandwichKids(n) {
		const F = flame;
		const add = (key, f, label, kind, k, w, c) => {
			let ch = n.kids.get(key);
			if (!ch) {
				ch = child(n, key, f, label, kind);
				Object.assign(ch, { cursors: new Map(), sw: n.sw, lazy: true });
			}
			ch.w += w;
			ch.c += c;
			if (k < 0) return ch;
			const a = ch.cursors.get(k);
			if (a) {
				a[0] += w;
				a[1] += c;
			} else ch.cursors.set(k, [w, c]);
			return ch;
		};
		const cursors = n.below ? n.below.map((k) => [k, [0, 0]]) : n.cursors;
		for (const [k, [w, c]] of cursors) {
			if (n.sw === 'up') {
				const p = F.fparent[k];
				if (p < 0) {
					// The outermost frame's caller: the command, where the path ends.
					const cn = add('c' + n.comm, -1, D.comms[n.comm], 'c', -1, w, c);
					cn.self += w;
					cn.lazy = false;
					continue;
				}
				const fr = prefix.frame[F.fprefix[p]];
				add(fr, fr, frames[fr].name, frames[fr].kind, p, w, c);
			} else {
				// Callees: the cursors' children, each a flame node of its own (no two cursors
				// share one), grouped by frame.
				for (let j = F.kid0[k]; j < F.kid0[k + 1]; j++) {
					const kj = F.kids[j];
					if (!F.FW[kj]) continue;
					const fr = prefix.frame[F.fprefix[kj]];
					let ch = n.kids.get(fr);
					if (!ch) {
						ch = child(n, fr, fr, frames[fr].name, frames[fr].kind);
						Object.assign(ch, { below: [], sw: n.sw, lazy: true });
					}
					ch.w += F.FW[kj];
					ch.c += F.FC[kj];
					ch.self += F.FS[kj];
					ch.below.push(kj);
				}
			}
		}
		n.cursors = n.below = null;
	}

	// ---- drawing a tree ----
	function pathOf(n) {
		const p = [];
		for (; n && n.parent; n = n.parent) p.unshift(n.key);
		return p;
	}
	function find(root, keys) {
		let n = root;
		for (const k of keys) {
			const m = kidsOf(n).get(k);
			if (!m) return n;
			n = m;
		}
		return n;
	}
	// Draw ROOT into EL, zoomed on FOCUS (its ancestors full width and dimmed), growing up
	// (flame) or down (icicle). Only frames wide enough to see are visited. Every frame is
	// painted on one canvas: a zoom repaints a few thousand rectangles, where as many
	// elements cost the browser's style, layout and paint several times a frame's 16 ms. The
	// frames drawn stay in EL._items ([node, left %, width %, dimmed]) for the pointer
	// (common.js, frameItemAt()), the selected frame's name is text beside the graph (graphText()), and
	// window.ringprof.frames() hands the drawn frames to the tests.
	function draw(el, root, focus, up) {
		const base = focus.w || 1;
		const items = [];
		for (let n = focus.parent; n; n = n.parent) items.unshift([n, 0, 100, true]);
		let maxDepth = focus.depth;
		const walk = (n, left) => {
			const width = (100 * n.w) / base;
			if (width < MIN_PCT) return;
			items.push([n, left, width, false]);
			if (n.depth > maxDepth) maxDepth = n.depth;
			// Once per tree (zooming in and out draws the same nodes again): the children by
			// name, where each starts (the weight of those before it), and their order by weight,
			// so that only those wide enough are visited.
			if (!n.sorted) {
				const kids = kidsOf(n);
				n.sorted = (n.all || [...kids.values()]).sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
				n.starts = new Float64Array(n.sorted.length);
				for (let i = 1; i < n.sorted.length; i++) n.starts[i] = n.starts[i - 1] + n.sorted[i - 1].w;
				n.heavy = Int32Array.from(n.sorted.keys()).sort((a, b) => n.sorted[b].w - n.sorted[a].w);
			}
			for (const i of n.heavy) {
				const k = n.sorted[i];
				if ((100 * k.w) / base < MIN_PCT) break;
				walk(k, left + (100 * n.starts[i]) / base);
			}
		};
		walk(focus, 0);
		el._items = items;
		el._up = up;
		// Zooming in, a graph keeps the tallest height it had for this tree (what follows it
		// on the page stays in place, not laid out and painted again); zooming out (to a
		// caller of the frame zoomed, or all the way), it takes its own height again: no
		// empty rows above the flame graph.
		const height = (maxDepth - root.depth + 1) * ROW;
		let deeper = false;
		for (let n = focus; n && !deeper; n = n.parent) deeper = n === el._focus;
		el._height = el._root === root && deeper ? Math.max(el._height, height) : height;
		el._root = root;
		el._depth0 = root.depth;
		el._rowOf = (it) => it[0].depth - el._depth0;
		el._focus = focus;
		paint(el);
		graphText(el);
	}
	// The top of row D (a depth below the graph's root) in EL, in px.
	const rowTop = frameRowTop;
	// Paint EL's frames on its canvas (common.js, paintFrames()): coloured by kind, the
	// search's matches in their own colour, the selected function outlined.
	function paint(el) {
		paintFrames(el, ([n]) => {
			const match = isMatch(n);
			return [match ? MATCH_COLOUR : n.kind === 'm' ? 'm' : KIND_COLOURS[n.kind] || KIND_COLOURS['?'], n.label, n.kind === 'm', isSelected(n), match];
		});
	}
	// What a screen reader and a copy of the page's text get of graph EL: its focus and the
	// selected function's frames, as words in the element before it.
	function graphText(el) {
		const focus = el._focus, canvas = el._canvas;
		const sel = state.selected && el._items.find((it) => isSelected(it[0]));
		const name = (n) => n.label + (n.frame >= 0 && frames[n.frame].obj ? ' (' + frames[n.frame].obj + ')' : '');
		const f = sel && agg.funcs.get(funcKey(state.selected.comm, state.selected.frame));
		const shares = f ? ': Children ' + fmtPct(pct(f.children, agg.total)) + ', Self ' + fmtPct(pct(f.self, agg.total)) + ' of the range' : '';
		const text = (focus.parent ? 'zoomed into ' + name(focus) + ', ' : '') + el._items.length + ' frames drawn' + (sel ? '; selected: ' + name(sel[0]) + shares : '');
		canvas.setAttribute('aria-label', (el.dataset.label || 'flame graph') + ': ' + text);
		const out = $(el.id + '-text');
		if (out) out.textContent = text;
	}
	// The frames drawn in graph ID as plain data (window.ringprof.frames(): the tests read the
	// graphs from here, as there is no element per frame): name, object, kind, left and width
	// in % of the graph's width, row (0: the graph's root), dimmed, matched, selected, and the
	// middle of the frame on the screen.
	function drawnFrames(id) {
		const el = $(id);
		if (!el._items || el.hidden) return [];
		const r = el.getBoundingClientRect(), W = el.clientWidth || 1;
		return el._items.map(([n, left, width, dim]) => {
			const row = n.depth - el._depth0;
			return { name: n.label, obj: n.frame >= 0 ? frames[n.frame].obj : '', kind: n.kind, left, width, row, dim, match: isMatch(n), selected: isSelected(n), x: r.left + el.clientLeft + ((left + width / 2) * W) / 100, y: r.top + el.clientTop + rowTop(el, row) + ROW / 2 };
		});
	}

	// ---- search and selection ----
	let matcher = null;
	function isMatch(n) {
		return matcher !== null && n.frame >= 0 && matcher(frames[n.frame].name);
	}
	function isSelected(n) {
		return state.selected !== null && n.frame >= 0 && frames[n.frame].flat === state.selected.frame && n.comm === state.selected.comm;
	}
	function makeMatcher(text) {
		if (!text) return null;
		const m = /^\/(.*)\/([a-z]*)$/.exec(text);
		if (m) {
			try {
				const re = new RegExp(m[1], m[2].replace(/[gy]/g, ''));
				return (s) => re.test(s);
			} catch (e) {
				return 'bad';
			}
		}
		return (s) => s.includes(text);
	}
	// The share of the range's samples (by weight) with a matching frame anywhere in the
	// stack, and with a matching leaf (the Self column of the matching rows).
	function searchShares() {
		// Each frame's name tested once; a node is hit when it or a caller matches.
		const fm = new Int8Array(frames.length).fill(-1);
		const match = (f) => (fm[f] < 0 ? (fm[f] = matcher(frames[f].name) ? 1 : 0) : fm[f]);
		const hit = new Uint8Array(prefix.n);
		for (let k = 0; k < prefix.n; k++) hit[k] = match(nodeFrame[k]) || (nodeParent[k] >= 0 && hit[nodeParent[k]]);
		let any = 0, leaf = 0;
		for (let s = 0; s < nStacks; s++) {
			if (!agg.w[s]) continue;
			if (hit[stackLeaf[s]]) any += agg.w[s];
			if (match(nodeFrame[stackLeaf[s]])) leaf += agg.w[s];
		}
		return { any: pct(any, agg.total), leaf: pct(leaf, agg.total) };
	}
	function showSearch() {
		const out = $('search-result');
		if (matcher === 'bad') {
			out.textContent = 'not a valid regular expression';
			return;
		}
		if (!matcher) {
			out.textContent = '';
			return;
		}
		const r = searchShares();
		out.innerHTML = 'matched: <span id="search-total">' + fmtPct(r.any) + '</span> of the samples have a matching frame, <span id="search-self">' + fmtPct(r.leaf) + '</span> in a matching frame itself (Self)';
	}

	// ---- tooltip ----
	function tip(ev, n) {
		const t = $('tooltip');
		const lines = ['<b>' + esc(n.label) + '</b>'];
		if (n.frame >= 0 && frames[n.frame].obj) lines.push('object: ' + esc(frames[n.frame].obj));
		const kinds = { u: 'user', k: 'kernel', j: 'JIT', '?': 'unknown (no symbol)', m: 'made up by ringprof (not code)', c: 'command', r: 'every sample' };
		lines.push('kind: ' + (kinds[n.kind] || n.kind));
		lines.push('samples: ' + n.c + ' (' + fmtPct(pct(n.w, agg.total)) + ' of the range' + (timeWeighted ? ', ' + fmtWeight(n.w) : '') + ')');
		if (n.frame >= 0) {
			const f = agg.funcs.get(funcKey(n.comm, frames[n.frame].flat));
			if (f) lines.push('function in ' + esc(D.comms[n.comm]) + ': Self ' + fmtPct(pct(f.self, agg.total)) + ', Children ' + fmtPct(pct(f.children, agg.total)));
		}
		if (n.kind === 'm') lines.push('a mark: the stack is incomplete or inferred here, see its name');
		t.innerHTML = lines.join('<br>');
		t.hidden = false;
		const x = Math.min(ev.clientX + 12, window.innerWidth - t.offsetWidth - 4);
		const y = ev.clientY + 16 + t.offsetHeight > window.innerHeight ? ev.clientY - t.offsetHeight - 8 : ev.clientY + 16;
		t.style.left = x + 'px';
		t.style.top = y + 'px';
	}
	// The pointer over graph EL: the frame under it outlined with its tooltip; a click hands
	// the frame to ONCLICK (common.js, hookFrames()).
	function hookGraph(el, onClick) {
		hookFrames(el, (ev, it) => tip(ev, it[0]), () => ($('tooltip').hidden = true), (it) => onClick(it[0]));
	}

	// ---- the views ----
	// Graph EL shows HTML instead of frames.
	function clearGraph(el, html) {
		el._items = [];
		el.innerHTML = html;
		el.style.height = 'auto';
		const out = $(el.id + '-text');
		if (out) out.textContent = '';
	}
	let trees = {}; // of the range, by view
	function render() {
		const inverted = state.view === 'icicle';
		$('flame').hidden = $('flame-text').hidden = state.view === 'sandwich';
		$('flame').dataset.label = inverted ? 'inverted flame graph (bottom-up)' : 'flame graph';
		$('sandwich').hidden = state.view !== 'sandwich';
		for (const b of document.querySelectorAll('[data-view]')) b.classList.toggle('on', b.dataset.view === state.view);
		if (state.view === 'sandwich') {
			renderSandwich();
		} else {
			const tree = trees[state.view] || (trees[state.view] = buildTree(inverted));
			performance.mark('ringprof-tree');
			draw($('flame'), tree, find(tree, state.zoom), !inverted);
			performance.mark('ringprof-drawn');
			if (!agg.total) clearGraph($('flame'), '<p class="hint">No sample ' + (fullTotal ? 'in this range.' : 'passed the filters.') + '</p>');
		}
		showSearch();
	}
	function renderSandwich() {
		const sel = state.selected;
		if (!sel) {
			clearGraph($('callers'), '');
			clearGraph($('callees'), '');
			return;
		}
		const f = agg.funcs.get(funcKey(sel.comm, sel.frame));
		$('sandwich-title').textContent = frames[sel.frame].name + ' (' + D.comms[sel.comm] + ', ' + frames[sel.frame].obj + ')' + (f ? ': Self ' + fmtPct(pct(f.self, agg.total)) + ', Children ' + fmtPct(pct(f.children, agg.total)) : ': no sample in this range');
		const sw = buildSandwich(sel);
		draw($('callers'), sw.callers, sw.callers, true);
		draw($('callees'), sw.callees, sw.callees, false);
	}

	// ---- the table ----
	const sortKeys = { children: 'children', self: 'self', samples: 'samples', comm: 'comm', obj: 'obj', name: 'name' };
	let sortKey = 'children';
	const TABLE_MAX = 1000;
	function renderTable() {
		// The [cut] marks say why a stack is partial: the graphs show them, the text
		// report's table has no such row, nor has this one.
		const rows = [...agg.funcs.values()].filter((f) => frames[f.frame].obj !== '[cut]').map((f) => ({ f, comm: D.comms[f.comm], obj: frames[f.frame].obj, name: frames[f.frame].name, kind: frames[f.frame].kind, children: f.children, self: f.self, samples: f.samples }));
		const k = sortKeys[sortKey];
		const numeric = k === 'children' || k === 'self' || k === 'samples';
		rows.sort((a, b) => (numeric ? b[k] - a[k] || b.self - a.self : a[k] < b[k] ? -1 : a[k] > b[k] ? 1 : b.children - a.children));
		const html = [];
		const sel = state.selected;
		for (const r of rows.slice(0, TABLE_MAX)) {
			const isSel = sel && sel.comm === r.f.comm && sel.frame === r.f.frame;
			html.push('<tr data-comm="' + r.f.comm + '" data-frame="' + r.f.frame + '"' + (isSel ? ' class="sel"' : '') + '><td class="num">' + fmtPct(pct(r.children, agg.total)) + '</td><td class="num">' + fmtPct(pct(r.self, agg.total)) + '</td><td class="num">' + r.samples + '</td><td>' + esc(r.comm) + '</td><td>' + esc(r.obj) + '</td><td class="sym"><span class="sw k-' + (r.kind === '?' ? 'q' : r.kind) + '"></span>' + esc(r.name) + '</td></tr>');
		}
		document.querySelector('#table tbody').innerHTML = html.join('');
		$('table-note').textContent = rows.length > TABLE_MAX ? 'The ' + TABLE_MAX + ' first of ' + rows.length + ' functions.' : rows.length + ' functions.';
		for (const th of document.querySelectorAll('#table th')) th.classList.toggle('sorted', th.dataset.sort === sortKey);
	}
	// A function selected (a frame or a row clicked): marked in the table and every view.
	function selectFunction(comm, frame) {
		const same = state.selected && state.selected.comm === comm && state.selected.frame === frame;
		state.selected = { comm, frame };
		render();
		if (same) return; // a zoom into another frame of it: the table and source stay
		for (const tr of document.querySelectorAll('#table tbody tr.sel')) tr.classList.remove('sel');
		const tr = document.querySelector('#table tbody tr[data-comm="' + comm + '"][data-frame="' + frame + '"]');
		if (tr) tr.classList.add('sel');
		renderSource();
	}

	// ---- the annotated source of the selected function ----
	// The hottest functions' lines as ringprof annotate gives them (of the whole recording and
	// every command: the annotation does not follow the range), by flat frame.
	const annotated = new Map();
	for (const a of D.annotated || []) if (!annotated.has(a.frame)) annotated.set(a.frame, a);
	function sourceRows(a) {
		let hot = null; // the heaviest line, the first of equals (as ringprof annotate marks it)
		for (const f of a.files) for (const l of f.lines) if (l && l[1] > 0 && (!hot || l[1] > hot[1])) hot = l;
		const rows = [];
		for (const f of a.files) {
			rows.push('<tr class="file"><td colspan="4">' + esc(f.file) + (f.missing ? ' <span class="missing">(source not on this host: ' + esc(f.missing) + '; line numbers only)</span>' : '') + '</td></tr>');
			for (const l of f.lines) {
				if (!l) {
					rows.push('<tr class="gap"><td></td><td class="num">...</td><td></td><td></td></tr>');
					continue;
				}
				const share = l[1] >= 0 ? pct(l[1], a.weight) : -1;
				const cls = (l[1] >= 0 ? 'code' : 'ctx') + (l === hot ? ' hot' : '');
				rows.push('<tr class="' + cls + '" data-line="' + l[0] + '"' + (share >= 0 ? ' data-pct="' + fixed(share, 2) + '"' : '') + '><td class="mark">' + (l === hot ? '&gt;&gt;' : '') + '</td><td class="num pct"' + (share >= 0 ? ' style="--w:' + share.toFixed(1) + '%"' : '') + '>' + (share >= 0 ? fixed(share, 2) : '') + '</td><td class="num">' + l[0] + '</td><td class="text">' + esc(l[3] === null ? '' : l[3]) + (l[4] ? '    <span class="inl">[inlined ' + esc(l[4]) + ']</span>' : '') + '</td></tr>');
			}
		}
		return rows.join('');
	}
	function renderSource() {
		const sel = state.selected;
		$('source-box').hidden = !sel;
		if (!sel) return;
		const fr = frames[sel.frame], a = annotated.get(sel.frame);
		$('source-title').textContent = fr.name + (fr.obj ? ' (' + fr.obj + ')' : '');
		$('source').innerHTML = '';
		if (!a) {
			$('source-note').textContent = 'Not annotated in this page: it holds the source lines of the ' + annotated.size + ' hottest functions by Self (' + D.annotated_min + '% of the samples or more, ' + D.annotated_max + ' at most), and ' + fr.name + ' is not one of them. ringprof annotate ' + fr.name + ' gives its lines.';
			return;
		}
		const notes = [a.samples + ' samples of its own, ' + fmtPct(pct(a.weight, fullTotal)) + ' of all, over the whole recording and every command.'];
		if (a.note) notes.push('No source lines: ' + a.note + '.');
		if (a.unplaced[1]) notes.push(fmtPct(pct(a.unplaced[0], a.weight)) + ' of its samples (' + a.unplaced[1] + ') are at no instruction start (another function of that name, or code that did not decode).');
		$('source-note').textContent = notes.join(' ');
		if (a.files.length) $('source').innerHTML = '<table><thead><tr><th></th><th class="num">Percent</th><th class="num">Line</th><th>Source</th></tr></thead><tbody>' + sourceRows(a) + '</tbody></table>';
		const hot = document.querySelector('#source tr.hot');
		if (hot) hot.scrollIntoView({ block: 'nearest' });
	}

	// ---- the timeline ----
	const TOP_GROUPS = 8;
	const palette = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f'];
	// Units (systemd units, containers) are worth a stacking of their own when the recordings
	// name some.
	const hasUnits = D.units.some((u) => u !== '[unknown]' && u !== '-');
	// The timeline: weight per bucket stacked by command (or unit), the 8 heaviest apart.
	function drawTimeline() {
		const svg = $('timeline');
		const byUnit = state.timelineBy === 'unit';
		const names = byUnit ? D.units : D.comms;
		// Each row's group (a command or a unit), its weight, in typed arrays.
		const groupOf = byUnit ? series.unit : series.comm;
		const weight = new Float64Array(names.length + 1);
		for (let i = 0; i < series.n; i++) weight[groupOf[i]] += series.weight[i];
		let nGroups = 0;
		for (const w of weight) nGroups += w > 0;
		const top = [...weight.keys()].filter((g) => weight[g] > 0).sort((a, b) => weight[b] - weight[a]).slice(0, TOP_GROUPS);
		const slot = new Int32Array(weight.length).fill(top.length);
		top.forEach((g, i) => (slot[g] = i));
		const nSlots = top.length + 1;
		const grid = new Float64Array(nBuckets * nSlots), samples = new Float64Array(nBuckets * nSlots);
		for (let i = 0; i < series.n; i++) {
			const at = series.bucket[i] * nSlots + slot[groupOf[i]];
			grid[at] += series.weight[i];
			samples[at] += series.samples[i];
		}
		timeline = { grid, samples, nSlots, names: top.map((c) => names[c]).concat(['other ' + (byUnit ? 'units' : 'commands')]) };
		let max = 0;
		for (let b = 0; b < nBuckets; b++) {
			let sum = 0;
			for (let s = 0; s < nSlots; s++) sum += grid[b * nSlots + s];
			max = Math.max(max, sum);
		}
		svg.setAttribute('viewBox', '0 0 ' + nBuckets + ' 100');
		const parts = [];
		for (let b = 0; b < nBuckets; b++) {
			let y = 100;
			for (let s = 0; s < nSlots; s++) {
				const h = max ? (100 * grid[b * nSlots + s]) / max : 0;
				if (!h) continue;
				y -= h;
				parts.push('<rect x="' + b + '" y="' + y.toFixed(3) + '" width="1" height="' + h.toFixed(3) + '" fill="' + palette[s] + '"/>');
			}
		}
		parts.push('<rect class="sel" id="tl-sel" x="0" y="0" width="0" height="100" visibility="hidden"/>');
		svg.innerHTML = parts.join('');
		const legend = top.map((c, i) => '<span><i style="background:' + palette[i] + '"></i>' + esc(names[c]) + '</span>');
		if (nGroups > top.length) legend.push('<span><i style="background:' + palette[top.length] + '"></i>other ' + (byUnit ? 'units' : 'commands') + '</span>');
		$('legend').innerHTML = legend.join('');
		$('timeline-by').hidden = !hasUnits;
		for (const b of document.querySelectorAll('[data-timeline-by]')) b.classList.toggle('on', b.dataset.timelineBy === (byUnit ? 'unit' : 'comm'));
		if (!D.bucket_ns) {
			// No wall-clock span known (recordings whose headers were lost): one bucket.
			$('axis-start').textContent = 'wall-clock time unknown';
			return;
		}
		$('axis-start').textContent = fmtTime(bucketNs(0), true);
		$('axis-end').textContent = fmtTime(bucketNs(nBuckets), false);
	}
	function bucketAt(svg, ev) {
		const r = svg.getBoundingClientRect();
		return Math.max(0, Math.min(nBuckets - 1, Math.floor(((ev.clientX - r.left) / r.width) * nBuckets)));
	}
	function showSelection(b0, b1) {
		[b0, b1] = snapRange(b0, b1);
		const sel = $('tl-sel');
		const all = b0 === 0 && b1 === nBuckets;
		sel.setAttribute('visibility', all ? 'hidden' : 'visible');
		sel.setAttribute('x', b0);
		sel.setAttribute('width', b1 - b0);
	}
	let timeline = null; // drawTimeline()'s grid, for the tooltip
	// The tooltip of bucket B: its times, samples and their groups, heaviest first.
	function timelineTip(ev, b) {
		const t = $('tooltip'), T = timeline;
		let n = 0;
		const parts = [];
		for (let s = 0; s < T.nSlots; s++) {
			n += T.samples[b * T.nSlots + s];
			if (T.samples[b * T.nSlots + s]) parts.push([T.samples[b * T.nSlots + s], T.names[s]]);
		}
		parts.sort((x, y) => y[0] - x[0]);
		t.innerHTML = '<b>' + fmtTime(bucketNs(b), false) + ' – ' + fmtTime(bucketNs(b + 1), false) + '</b><br>' + n + ' samples' + parts.map((p) => '<br>' + p[0] + ' ' + esc(p[1])).join('');
		t.hidden = false;
		t.style.left = Math.min(ev.clientX + 12, window.innerWidth - t.offsetWidth - 4) + 'px';
		t.style.top = ev.clientY + 16 + 'px';
	}
	function hookTimeline(svg) {
		let start = -1;
		svg.addEventListener('mousemove', (ev) => {
			if (start < 0 && D.bucket_ns) timelineTip(ev, bucketAt(svg, ev));
		});
		svg.addEventListener('mouseleave', () => ($('tooltip').hidden = true));
		svg.addEventListener('mousedown', (ev) => {
			start = bucketAt(svg, ev);
			showSelection(start, start + 1);
			ev.preventDefault();
		});
		window.addEventListener('mousemove', (ev) => {
			if (start < 0) return;
			const b = bucketAt(svg, ev);
			showSelection(Math.min(start, b), Math.max(start, b) + 1);
		});
		window.addEventListener('mouseup', (ev) => {
			if (start < 0) return;
			const b = bucketAt(svg, ev);
			$('tooltip').hidden = true;
			setRange(Math.min(start, b), Math.max(start, b) + 1);
			start = -1;
		});
	}
	// A range is chosen in whole steps: said where a step is wider than a bucket.
	const stepWidth = (STEP * D.bucket_ns) / 1e9;
	const stepText = STEP > 1 && D.bucket_ns ? ' <span id="range-step" title="this page keeps the stacks\' samples per ' + stepWidth + ' s (report --html-counts): a range starts and ends at a multiple of it">· in steps of ' + stepWidth + ' s</span>' : '';
	function setRange(b0, b1) {
		[b0, b1] = snapRange(b0, b1);
		state.b0 = b0;
		state.b1 = b1;
		state.zoom = [];
		showSelection(b0, b1);
		agg = aggregate(b0, b1);
		performance.mark('ringprof-aggregated');
		trees = {};
		const all = b0 === 0 && b1 === nBuckets;
		const since = bucketNs(b0), until = bucketNs(b1);
		const box = $('timeline-box');
		box.dataset.b0 = b0;
		box.dataset.b1 = b1;
		box.dataset.sinceNs = since.toString();
		box.dataset.untilNs = (until - 1n).toString();
		$('range-text').innerHTML = (!D.bucket_ns ? 'all time: ' : (all ? 'all time: ' : 'range: ') + fmtTime(since, true) + ' – ' + fmtTime(until, false) + ' (' + (Number(until - since) / 1e9).toFixed(3) + ' s): ') + '<span id="range-samples">' + agg.samples + '</span> samples' + (timeWeighted ? ', ' + fmtWeight(agg.total) : '') + (all ? '' : ', ' + fmtPct(pct(agg.total, fullTotal)) + ' of all') + stepText;
		renderTable();
		performance.mark('ringprof-table');
		render();
	}

	// ---- start ----
	let fullTotal = 0, fullSamples = 0;
	for (let i = 0; i < counts.n; i++) {
		fullTotal += counts.weight[i];
		fullSamples += counts.samples[i];
	}
	$('header').textContent = D.header;
	$('summary').textContent = inputsText(D.inputs) + ' · ' + (D.event || '') + (D.weight !== 'cpu' ? ' (' + D.weight + ')' : '') + ' · ' + fullSamples + ' samples';
	$('summary').title = D.inputs.join('\n');
	document.title = 'ringprof · ' + inputsText(D.inputs);
	for (const b of document.querySelectorAll('[data-view]'))
		b.addEventListener('click', () => {
			state.view = b.dataset.view;
			state.zoom = [];
			render();
		});
	$('zoom-reset').addEventListener('click', () => {
		state.zoom = [];
		render();
	});
	$('range-clear').addEventListener('click', () => setRange(0, nBuckets));
	// Keys: Escape zooms out one frame (or clears the search), "/" goes to the search box.
	document.addEventListener('keydown', (ev) => {
		if (ev.key === '/' && document.activeElement !== $('search')) {
			ev.preventDefault();
			$('search').focus();
		} else if (ev.key === 'Escape' && document.activeElement === $('search')) {
			$('search').value = '';
			matcher = null;
			$('search').blur();
			render();
		} else if (ev.key === 'Escape' && state.zoom.length) {
			state.zoom = state.zoom.slice(0, -1);
			render();
		}
	});
	$('search').addEventListener('input', () => {
		matcher = makeMatcher($('search').value);
		render();
	});
	hookGraph($('flame'), (n) => {
		state.zoom = pathOf(n);
		if (n.frame >= 0) selectFunction(n.comm, frames[n.frame].flat);
		else render();
	});
	const sandwichClick = (n) => {
		if (n.frame >= 0) selectFunction(n.comm, frames[n.frame].flat);
	};
	hookGraph($('callers'), sandwichClick);
	hookGraph($('callees'), sandwichClick);
	for (const th of document.querySelectorAll('#table th'))
		th.addEventListener('click', () => {
			sortKey = th.dataset.sort;
			renderTable();
		});
	document.querySelector('#table tbody').addEventListener('click', (ev) => {
		const tr = ev.target.closest('tr');
		if (!tr) return;
		selectFunction(+tr.dataset.comm, +tr.dataset.frame);
	});
	performance.mark('ringprof-stacks');
	// For the tests and for whoever scripts the page: the frames each graph draws.
	window.ringprof = { frames: drawnFrames };
	// The canvases painted again to a new width (or pixel ratio), once a frame at most.
	let resizing = false;
	window.addEventListener('resize', () => {
		if (resizing) return;
		resizing = true;
		requestAnimationFrame(() => {
			resizing = false;
			for (const id of ['flame', 'callers', 'callees']) if ($(id)._items && $(id)._items.length) paint($(id));
		});
	});
	for (const b of document.querySelectorAll('[data-timeline-by]'))
		b.addEventListener('click', () => {
			state.timelineBy = b.dataset.timelineBy;
			drawTimeline();
			showSelection(state.b0, state.b1);
		});
	drawTimeline();
	hookTimeline($('timeline'));
	setRange(0, nBuckets);
	requestAnimationFrame(() => {
		document.body.dataset.ready = '1';
		performance.mark('ringprof-painted');
	});
}
