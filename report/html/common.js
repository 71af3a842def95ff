// common.js — what both pages of ringprof (report --html, diff --html) share; embed.sh puts it
// before each page's own script.
'use strict';
/* exported loadData, expandNodes, frameName, inputsText -- used by page.js and diff.js */

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
// line feed is 7 bits (U+0100 + V for the values NUL, LF, CR and "<"), read into bytes from the
// top bit down; what is left at the end is padding.
function unpackText(text) {
	const n = text.length;
	const out = new Uint8Array(Math.ceil((n * 7) / 8));
	let acc = 0, bits = 0, k = 0;
	for (let i = 0; i < n; i++) {
		let c = text.charCodeAt(i);
		if (c === 10) continue;
		if (c >= 256 && c < 384) c -= 256;
		else if (c >= 128) throw new Error('the data is damaged (character ' + c + ' at ' + i + ')');
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

// A frame's name as stored: a number is "[unknown] OBJ+0xNUMBER".
function frameName(name, obj) {
	return typeof name === 'number' ? '[unknown] ' + obj + '+0x' + name.toString(16) : name;
}

// The recordings a page was made of, as its title line names them: all of a few, the first
// and how many more of a directory's dozens (the pages list them all in the line's tooltip).
function inputsText(list) {
	return list.length <= 3 ? list.join(', ') : list[0] + ' and ' + (list.length - 1) + ' more recordings';
}
