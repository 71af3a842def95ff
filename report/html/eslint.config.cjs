// eslint.config.cjs — the lint of the pages' scripts (tests/html-lint.sh runs it with the eslint
// that tests/web/package.json pins): eslint's recommended rules, for scripts (not modules) that
// a browser runs with no library, plus rules that keep them plain.
'use strict';
const path = require('path');
const js = require(path.join(__dirname, '..', '..', 'tests', 'web', 'node_modules', '@eslint', 'js'));

// What the pages use of the browser: no other global may be named (a typo, or a request).
const browser = ['document', 'window', 'performance', 'requestAnimationFrame', 'atob', 'Blob', 'Response', 'DecompressionStream', 'TextDecoder', 'MouseEvent', 'getComputedStyle'];

module.exports = [
	js.configs.recommended,
	{
		files: ['**/*.js'],
		languageOptions: {
			ecmaVersion: 2022,
			sourceType: 'script',
			globals: Object.fromEntries(browser.map((g) => [g, 'readonly'])),
		},
		linterOptions: { reportUnusedDisableDirectives: 'error' },
		rules: {
			'no-unused-vars': ['error', { args: 'after-used', caughtErrors: 'none' }],
			'no-shadow': 'error',
			'no-var': 'error',
			'prefer-const': 'error',
			eqeqeq: 'error',
			'no-eval': 'error',
			'no-implied-eval': 'error',
			'no-new-func': 'error',
			'no-restricted-globals': ['error', 'fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource', 'Worker', 'SharedWorker', 'importScripts', 'name', 'event', 'length', 'status'],
			strict: ['error', 'global'],
			// The format: tabs, semicolons, single quotes; clang-format's job in C.
			indent: ['error', 'tab', { SwitchCase: 1, flatTernaryExpressions: true, ignoredNodes: ['ConditionalExpression'] }],
			semi: ['error', 'always'],
			quotes: ['error', 'single', { avoidEscape: true }],
			'no-trailing-spaces': 'error',
			'no-mixed-spaces-and-tabs': 'error',
			'eol-last': 'error',
			'brace-style': ['error', '1tbs', { allowSingleLine: true }],
			'comma-dangle': ['error', 'always-multiline'],
			'space-before-blocks': 'error',
			'keyword-spacing': 'error',
		},
	},
];
