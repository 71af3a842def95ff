// common.js — what both pages of ringprof (report --html, diff --html) share; embed.sh puts it
// before each page's own script.
'use strict';
/* exported loadData, expandNodes, frameName, inputsText -- used by page.js and diff.js */

// The data element: gzip in base64, read with the browser's own DecompressionStream.
async function loadData() {
	const text = document.getElementById('data').textContent;
	let bytes;
	if (Uint8Array.fromBase64) bytes = Uint8Array.fromBase64(text); // skips the line breaks
	else {
		const bin = atob(text.replace(/\s+/g, ''));
		bytes = new Uint8Array(bin.length);
		for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
	}
	if (typeof DecompressionStream === 'undefined')
		throw new Error('this browser has no DecompressionStream to read the data with (Chrome 80, Firefox 113, Safari 16.4 and later have it)');
	const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
	return parseData(new Uint8Array(await new Response(stream).arrayBuffer()));
}

// The long columns of numbers of both pages (millions of them), read here into Float64Arrays
// rather than by JSON.parse (arrays of boxed numbers: twice the time, and garbage to collect).
// A column is a key at the start of a line ('\n"NAME":[': no string of the JSON holds a line
// break) with nothing but integers, commas and line breaks up to its ']'; the rest of the
// JSON, the column given as 0, goes to JSON.parse.
const COLUMNS = new Set(['node_ups', 'node_frames', 'stack_comms', 'stack_leaves', 'count_bucket', 'count_stack', 'count_unit', 'count_samples', 'count_weight', 'leaf_places', 'leaf_base', 'leaf_new']);
function parseData(bytes) {
	const text = new TextDecoder(), parts = [], columns = {};
	let from = 0;
	for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) {
		if (bytes[i + 1] !== 34) continue; // '"'
		const q = bytes.indexOf(34, i + 2);
		if (q < 0 || bytes[q + 1] !== 58 || bytes[q + 2] !== 91) continue; // '":['
		const name = text.decode(bytes.subarray(i + 2, q));
		const col = COLUMNS.has(name) ? parseColumn(bytes, q + 3) : null;
		if (!col) continue;
		columns[name] = col.values;
		parts.push(text.decode(bytes.subarray(from, q + 2)), '0');
		from = col.end + 1;
		i = col.end;
	}
	parts.push(text.decode(bytes.subarray(from)));
	return Object.assign(JSON.parse(parts.join('')), columns);
}
// The integers of B from AT up to the next ']' (its place: END), or null if anything else is
// there (then JSON.parse reads it). One pass, into room for the most numbers that many bytes
// can hold, then copied to their number.
function parseColumn(b, at) {
	const end = b.indexOf(93, at);
	if (end < 0) return null;
	const room = new Float64Array(((end - at) >> 1) + 1);
	let k = 0, x = 0, neg = false, any = false;
	for (let i = at; i < end; i++) {
		const c = b[i];
		if (c >= 48 && c <= 57) {
			x = x * 10 + c - 48;
			any = true;
		} else if (c === 44) {
			room[k++] = neg ? -x : x;
			x = 0;
			neg = false;
		} else if (c === 45) neg = true;
		else if (c !== 10) return null;
	}
	if (any) room[k++] = neg ? -x : x;
	return { values: room.slice(0, k), end };
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
	const path = [];
	const under = new Map(); // parent frame (-1: none) -> the frames met under it
	let depth = -1, next = 0;
	for (let i = 0; i < n; i++) {
		const d = depth + 1 - ups[i];
		const p = d > 0 ? path[d - 1] : -1;
		const pf = p >= 0 ? frame[p] : -1;
		let met = under.get(pf);
		if (!met) under.set(pf, (met = []));
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
