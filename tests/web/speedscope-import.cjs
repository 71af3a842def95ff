// speedscope-import.cjs — opens a file in speedscope (the npm package's own page, in headless
// Chromium) as its command-line tool does, and prints what speedscope made of it, one
// "key value" line each, for tests/script-speedscope.sh:
//   importer LINE      speedscope's console line naming the importer it chose
//   profile NAME       the profile shown first ("COMM pid: PID tid: TID" for perf script text)
//   profiles N         how many profiles the file gave (one per thread for perf script text)
//   sym NAME           each row of the first profile's sandwich table (every frame name)
//   top_self NAME      the row with the most self time
//   error TEXT         an exception in the page or speedscope's own error message
// Usage: node speedscope-import.cjs FILE NAME WORKDIR (NAME: the file name speedscope is told,
// which picks no importer by itself unless it ends in one of speedscope's extensions).
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require(path.join(__dirname, 'node_modules', 'playwright-core'));

const [file, name, workdir] = process.argv.slice(2);
const out = (k, v) => console.log(k + ' ' + v);
const page_url = 'file://' + path.join(__dirname, 'node_modules', 'speedscope', 'dist', 'release', 'index.html');

(async () => {
	// speedscope's CLI writes a script that hands the file over, base64, and opens the page
	// with #localProfilePath= naming it: the same here.
	const loader = path.join(workdir, 'speedscope-load.js');
	fs.writeFileSync(loader, 'speedscope.loadFileFromBase64(' + JSON.stringify(name) + ', ' +
		JSON.stringify(fs.readFileSync(file).toString('base64')) + ');\n');
	const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium' });
	// Tall, so that the sandwich table (it draws only the rows in view) shows them all.
	const page = await browser.newPage({ viewport: { width: 1600, height: 20000 } });
	page.on('console', (m) => {
		if (/^Importing/.test(m.text())) out('importer', m.text());
	});
	page.on('pageerror', (e) => out('error', e.message));
	page.on('dialog', async (d) => {
		out('error', d.message());
		await d.dismiss();
	});
	await page.goto(page_url + '#localProfilePath=' + loader);
	try {
		await page.waitForFunction(() => /\(\d+\/\d+\)|Time Order/.test(document.body.innerText) &&
			!/Drag and drop/.test(document.body.innerText), null, { timeout: 20000 });
	} catch (e) {
		out('error', 'no profile shown: ' + (await page.evaluate(() => document.body.innerText)).slice(0, 200).replace(/\n/g, ' '));
		await browser.close();
		return;
	}
	const head = await page.evaluate(() => document.body.innerText);
	const m = /\n([^\n]*?) \((\d+)\/(\d+)\)\n/.exec(head);
	if (m) {
		out('profile', m[1]);
		out('profiles', m[3]);
	} else {
		const one = head.split('\n')[1] || '';
		out('profile', one);
		out('profiles', 1);
	}
	await page.keyboard.press('3'); // the sandwich view
	// The table's header comes first, its rows a frame later.
	await page.waitForFunction(() => /Symbol Name[^]*\n\t\S/.test(document.body.innerText), null, {
		timeout: 10000,
	});
	const text = await page.evaluate(() => document.body.innerText);
	const lines = text.slice(text.indexOf('Symbol Name') + 'Symbol Name'.length).split('\n').filter((l) => l.trim() !== '');
	// Rows as three lines: "TOTAL (PCT%)", "\tSELF (PCT%)", "\tNAME".
	const toSecs = (s) => {
		const v = /([\d.]+)(ns|µs|us|ms|s|min|h)/.exec(s);
		const unit = { ns: 1e-9, 'µs': 1e-6, us: 1e-6, ms: 1e-3, s: 1, min: 60, h: 3600 };
		return v ? parseFloat(v[1]) * unit[v[2]] : 0;
	};
	let top = null;
	for (let i = 0; i + 2 < lines.length; i += 3) {
		const self = toSecs(lines[i + 1]);
		const sym = lines[i + 2].trim();
		out('sym', sym);
		if (!top || self > top.self) top = { self, sym };
	}
	if (top) out('top_self', top.sym);
	await browser.close();
})().catch((e) => {
	out('error', e.message);
	process.exit(1);
});
