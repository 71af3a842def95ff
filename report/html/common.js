// common.js — what both pages of ringprof (report --html, diff --html) share; embed.sh puts it
// before each page's own script.
'use strict';

// The data element: gzip in base64, read with the browser's own DecompressionStream.
async function loadData() {
	const text = document.getElementById('data').textContent.replace(/\s+/g, '');
	const bin = atob(text);
	const bytes = new Uint8Array(bin.length);
	for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
	if (typeof DecompressionStream === 'undefined')
		throw new Error('this browser has no DecompressionStream to read the data with (Chrome 80, Firefox 113, Safari 16.4 and later have it)');
	const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
	return JSON.parse(await new Response(stream).text());
}
