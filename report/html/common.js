// common.js — what both pages of ringprof (report --html, diff --html) share; embed.sh puts it
// before each page's own script.
'use strict';
/* exported fixed, loadData, expandNodes, inputsText, FRAME_ROW, paintFrames, frameRowTop, frameItemAt, hookFrames -- used by page.js and diff.js */

// X with D decimals as C's printf writes it in the text outputs: a value exactly halfway (0.125
// is one, 0.025 is not: its double is above) goes to the even digit, where toFixed() goes away
// from zero. toFixed(100) gives the double's exact digits (a tie has fewer than 60).
function fixed(x, d) {
	const y = Math.abs(x) * 10 ** d;

	if (Math.abs(y - Math.floor(y) - 0.5) > 1e-6) return x.toFixed(d); // far from a tie
	const exact = Math.abs(x).toFixed(100);
	const cut = exact.indexOf('.') + 1 + d;

	if (/^50*$/.test(exact.slice(cut)) && Number(exact[cut - 1]) % 2 === 0) return (x < 0 ? '-' : '') + exact.slice(0, d ? cut : cut - 1);
	return x.toFixed(d);
}

// The data element: gzip as text of 7 bits a character (unpackText()), inflated with the
// browser's own DecompressionStream. Inside, a JSON text, a NUL, then the long columns of
// numbers as varints (html.h, html_col_begin()); each member {"column": [offset, count, kind]}
// of the JSON becomes that column as a typed array: no JSON.parse of long lists of numbers.
async function loadData() {
	const bytes = unpackText(document.getElementById('data').textContent);
	if (typeof DecompressionStream === 'undefined')
		throw new Error('this browser has no DecompressionStream to read the data with (Chrome 80, Firefox 113, Safari 16.4 and later have it)');
	const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
	const data = new Uint8Array(await new Response(stream).arrayBuffer());
	const end = data.indexOf(0);
	const D = JSON.parse(new TextDecoder().decode(data.subarray(0, end < 0 ? data.length : end)));
	for (const key of Object.keys(D)) {
		const v = D[key];
		if (v && typeof v === 'object' && Array.isArray(v.column)) D[key] = readColumn(data, end + 1, v.column);
	}
	return D;
}

// The bytes of the data element's text (html-pack.h, html_text_write()): each character but a
// line feed is 7 bits ("\\0", "\\n", "\\r", "\\l" and "\\\\" the values NUL, LF, CR, "<" and
// "\\"), read into bytes from the top bit down; what is left at the end is padding.
function unpackText(text) {
	const n = text.length;
	const out = new Uint8Array(Math.ceil((n * 7) / 8));
	const escaped = { 48: 0, 110: 10, 114: 13, 108: 60, 92: 92 }; // after "\\": 0 n r l \\
	let acc = 0, bits = 0, k = 0;
	for (let i = 0; i < n; i++) {
		let c = text.charCodeAt(i);
		if (c === 10) continue;
		if (c === 92) c = escaped[text.charCodeAt(++i)];
		if (!(c < 128)) throw new Error('the data is damaged (at character ' + i + ')');
		acc = ((acc << 7) | c) & 0x7fff;
		bits += 7;
		if (bits >= 8) {
			bits -= 8;
			out[k++] = acc >> bits;
		}
	}
	return out.subarray(0, k);
}

// A column of varints (LEB128, 7 bits a byte, low first; kinds 's' and 'S' zigzag-coded) from
// BASE + OFFSET: 'u' and 's' into an Int32Array, 'U' and 'S' into a Float64Array.
function readColumn(data, base, [offset, n, kind]) {
	const out = kind === 'u' || kind === 's' ? new Int32Array(n) : new Float64Array(n);
	const zigzag = kind === 's' || kind === 'S';
	let p = base + offset;
	for (let i = 0; i < n; i++) {
		let b = data[p++];
		let v = b & 127;
		for (let scale = 128; b >= 128; scale *= 128) {
			b = data[p++];
			v += (b & 127) * scale;
		}
		out[i] = zigzag ? (v % 2 ? -(v + 1) / 2 : v / 2) : v;
	}
	if (p > data.length) throw new Error('the data is cut short (column at ' + offset + ')');
	return out;
}

// The tree of frames as both pages store it, written depth first: each node's depth as a step
// up from the previous node's (its parent is the last node one level up), and its frame coded
// against the frames already met under its parent's frame (K below their number: the Kth of
// them; their number: a frame never met, the next; more: frame K less their number less 1).
// Back to each node's parent (-1: an outermost frame) and frame; a parent comes before its
// children.
function expandNodes(ups, codes) {
	const n = ups.length;
	const parent = new Int32Array(n), frame = new Int32Array(n);
	const path = new Int32Array(n + 1);
	const under = []; // parent frame + 1 (0: none) -> the frames met under it
	let depth = -1, next = 0;
	for (let i = 0; i < n; i++) {
		const d = depth + 1 - ups[i];
		const p = d > 0 ? path[d - 1] : -1;
		const pf = p >= 0 ? frame[p] + 1 : 0;
		let met = under[pf];
		if (!met) under[pf] = met = [];
		const c = codes[i];
		let f;
		if (c < met.length) f = met[c];
		else {
			f = c === met.length ? next++ : c - met.length - 1;
			met.push(f);
		}
		parent[i] = p;
		frame[i] = f;
		path[d] = i;
		depth = d;
	}
	return { n, parent, frame };
}

// The recordings a page was made of, as its title line names them: all of a few, the first
// and how many more of a directory's dozens (the pages list them all in the line's tooltip).
function inputsText(list) {
	return list.length <= 3 ? list.join(', ') : list[0] + ' and ' + (list.length - 1) + ' more recordings';
}

// ---- the graphs' canvas: both pages paint their flame graphs with these ----
// A graph EL holds EL._items (its frames drawn: [node, left %, width %, dimmed, ...]),
// EL._rowOf(item) (the item's row, 0: the graph's root), EL._height (px) and EL._up (the root
// at the bottom).
const FRAME_ROW = 18; // px per frame row
const FRAME_TEXT_PX = 16; // a frame narrower than this shows no name
const FRAME_FONT = '11px ui-monospace, "DejaVu Sans Mono", monospace';
const FRAME_DIM_ALPHA = 0.45; // a zoomed frame's callers, drawn full width

// The top of row D of graph EL, in px.
function frameRowTop(el, d) {
	return el._up ? el._height - (d + 1) * FRAME_ROW : d * FRAME_ROW;
}

// The made-up frames' stripes, as page.css draws them.
let frameStripes = null;
function frameStripesOf(ctx) {
	if (frameStripes) return frameStripes;
	const c = document.createElement('canvas');
	c.width = c.height = 8;
	const g = c.getContext('2d');
	g.fillStyle = '#d9c8ef';
	g.fillRect(0, 0, 8, 8);
	g.strokeStyle = '#c4aee6';
	g.lineWidth = 2.8;
	g.beginPath();
	for (let k = -8; k <= 16; k += 8) {
		g.moveTo(k, 0);
		g.lineTo(k + 8, 8);
	}
	g.stroke();
	return (frameStripes = ctx.createPattern(c, 'repeat'));
}

// Paint EL's frames on its canvas (kept from one drawing to the next: a new one costs more
// than the painting). LOOK(item) gives [fill (a colour; 'm': the made-up frames' stripes),
// label, italic, selected (outlined), light (white text)]. Each frame a rectangle less one
// pixel right and below (the gap that sets it apart from its neighbours), its name where two
// characters fit, cut with "…".
function paintFrames(el, look) {
	let canvas = el._canvas;
	if (!canvas || canvas.parentNode !== el) {
		canvas = el._canvas = canvas || document.createElement('canvas');
		canvas.setAttribute('role', 'img');
		el.textContent = '';
		el.append(canvas);
		if (el._hoverBox) el.append(el._hoverBox);
	}
	if (el._hoverBox) el._hoverBox.hidden = true;
	const W = el.clientWidth || 1000, height = el._height, ROW = FRAME_ROW;
	el.style.height = height + 'px';
	// The canvas only grows (the graph's box cuts it to the graph's height): a new size is a
	// new bitmap, which costs more than painting a few rows more.
	const ratio = window.devicePixelRatio || 1, cw = Math.round(W * ratio), ch = Math.round(height * ratio);
	if (canvas.width !== cw || canvas.height < ch) {
		canvas.width = cw;
		canvas.height = ch;
		canvas.style.width = W + 'px';
		canvas.style.height = height + 'px';
	}
	const ctx = canvas.getContext('2d');
	ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
	ctx.clearRect(0, 0, W, canvas.height / ratio);
	ctx.font = FRAME_FONT;
	ctx.textBaseline = 'middle';
	const charW = ctx.measureText('0000000000').width / 10;
	const texts = [], outlines = [];
	// Rectangles grouped by fill: setting a fill costs more than a rectangle.
	const byFill = new Map();
	for (const it of el._items) {
		const [fill, label, italic, selected, light] = look(it);
		const dim = it[3];
		const x = (it[1] * W) / 100, w = (it[2] * W) / 100, y = frameRowTop(el, el._rowOf(it));
		const key = dim ? 'dim ' + fill : fill;
		let list = byFill.get(key);
		if (!list) byFill.set(key, (list = []));
		list.push(x, y, Math.max(w - 1, 0.5));
		if (selected) outlines.push(x, y, w);
		if (w >= FRAME_TEXT_PX) texts.push(label, x, y, w, light, dim, italic);
	}
	for (const [key, list] of byFill) {
		const dim = key.startsWith('dim ');
		const fill = dim ? key.slice(4) : key;
		ctx.globalAlpha = dim ? FRAME_DIM_ALPHA : 1;
		ctx.fillStyle = fill === 'm' ? frameStripesOf(ctx) : fill;
		for (let i = 0; i < list.length; i += 3) ctx.fillRect(list[i], list[i + 1], list[i + 2], ROW - 1);
	}
	// A font, colour or alpha set only when it changes: each is parsed again when set.
	let font = FRAME_FONT, colour = '', alpha = 1;
	ctx.globalAlpha = 1;
	for (let i = 0; i < texts.length; i += 7) {
		const label = texts[i], x = texts[i + 1], w = texts[i + 3];
		const fit = Math.floor((w - 4) / charW);
		if (fit < 2) continue;
		const a = texts[i + 5] ? FRAME_DIM_ALPHA : 1, c = texts[i + 4] ? '#fff' : '#000', f = texts[i + 6] ? 'italic ' + FRAME_FONT : FRAME_FONT;
		if (a !== alpha) ctx.globalAlpha = alpha = a;
		if (c !== colour) ctx.fillStyle = colour = c;
		if (f !== font) ctx.font = font = f;
		ctx.fillText(label.length > fit ? label.slice(0, fit - 1) + '…' : label, x + 2, texts[i + 2] + (ROW - 1) / 2);
	}
	ctx.globalAlpha = 1;
	ctx.strokeStyle = '#000';
	ctx.lineWidth = 2;
	for (let i = 0; i < outlines.length; i += 3) ctx.strokeRect(outlines[i] + 1, outlines[i + 1] + 1, Math.max(outlines[i + 2] - 2, 1), ROW - 2);
}

// The frame drawn at EV's position in graph EL (its item), or null.
function frameItemAt(el, ev) {
	const r = el.getBoundingClientRect(), items = el._items || [];
	// In the graph's content box, as the canvas is placed.
	const x = (100 * (ev.clientX - r.left - el.clientLeft)) / (el.clientWidth || 1), py = ev.clientY - r.top - el.clientTop;
	for (const it of items) {
		const top = frameRowTop(el, el._rowOf(it));
		if (x >= it[1] && x < it[1] + it[2] && py >= top && py < top + FRAME_ROW) return it;
	}
	return null;
}

// The pointer over graph EL: the frame under it outlined (one element over the canvas), TIP(ev,
// item) shows its tooltip (LEAVE() hides it); a click hands the item to ONCLICK.
function hookFrames(el, tip, leave, onClick) {
	const box = (el._hoverBox = document.createElement('div'));
	box.className = 'hover-box';
	box.hidden = true;
	const out = () => {
		leave();
		box.hidden = true;
		el.style.cursor = '';
	};
	el.addEventListener('mousemove', (ev) => {
		const it = frameItemAt(el, ev);
		if (!it) return out();
		tip(ev, it);
		const W = el.clientWidth || 1;
		box.style.left = (it[1] * W) / 100 + 'px';
		box.style.width = Math.max((it[2] * W) / 100 - 1, 1) + 'px';
		box.style.top = frameRowTop(el, el._rowOf(it)) + 'px';
		box.hidden = false;
		el.style.cursor = 'pointer';
	});
	el.addEventListener('mouseleave', out);
	el.addEventListener('click', (ev) => {
		const it = frameItemAt(el, ev);
		if (it) onClick(it);
	});
}
