// Render Beam Harmony requests with a chat template in @huggingface/jinja,
// the Jinja engine of transformers.js and of the Hub's template preview.
//
// This is the node side of the interop check between the Go renderer
// (github.com/beamharmony/harmony) and a chat_template.jinja; it mirrors
// render_jinja.py, which renders as Python Transformers does.
//
// Usage:
//
//   node render_hfjs.mjs --template chat_template.jinja --modules DIR < requests.jsonl
//
// DIR is a directory whose node_modules holds @huggingface/jinja. One request
// per input line (the JSON the Go command line reads); one JSON result per
// output line, in order:
//   {"prompt": ..., "spans_unknown": true}   the template rendered
//   {"error": MESSAGE}                        the template called raise_exception(MESSAGE)
//   {"exception": "Type: message"}            any other failure
// A result also lists, in "lossy_numbers", the number literals of the request
// that a JavaScript number cannot hold or write back as given (2.0, 1e-05,
// 9007199254740993), and gives in "js_request" the request with each of them
// spelled as JavaScript writes the number it holds (2, 0.00001,
// 9007199254740992): the Go renderer given that request must agree. When an
// integer literal becomes a number JavaScript writes with an exponent
// (1e+30), "unrepresentable" is set: no request says what the engine holds.
// @huggingface/jinja removes {% generation %} tags before parsing, so it
// knows no assistant spans ("spans_unknown").
//
// Values reach the template as the engine's runtime values built directly
// from the JSON text, so that object keys keep their order (a JavaScript
// object would put keys like "2" first) and integer literals stay integers.
// Template arguments besides messages, tools and add_generation_prompt are
// passed only when the request has them; add_generation_prompt absent or
// null means true, as in render_jinja.py.
//
//   node render_hfjs.mjs --probe-generation --modules DIR
//
// prints true when the engine drops {% generation %} tags before parsing
// (so that it cannot tell assistant spans), false when it keeps them.
//
// Exit status 3: @huggingface/jinja cannot be loaded from DIR.

import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";

const EXIT_NO_PACKAGE = 3;

function usage(msg) {
	process.stderr.write(`render_hfjs.mjs: ${msg}\nusage: node render_hfjs.mjs --template FILE --modules DIR < requests.jsonl\n`);
	process.exit(2);
}

const argv = process.argv.slice(2);
let templatePath = "";
let modulesDir = "";
let probeGeneration = false;
for (let i = 0; i < argv.length; i++) {
	if (argv[i] === "--template") templatePath = argv[++i] ?? "";
	else if (argv[i] === "--modules") modulesDir = argv[++i] ?? "";
	else if (argv[i] === "--probe-generation") probeGeneration = true;
	else usage(`unknown argument ${argv[i]}`);
}
if (!modulesDir || (!templatePath && !probeGeneration)) usage("--template and --modules are required");

let jinja;
try {
	const require = createRequire(path.join(path.resolve(modulesDir), "package.json"));
	jinja = require("@huggingface/jinja");
} catch (err) {
	process.stderr.write(`render_hfjs.mjs: cannot load @huggingface/jinja from ${modulesDir}: ${err.message}\n`);
	process.exit(EXIT_NO_PACKAGE);
}
const { Template, Environment, tokenize } = jinja;

if (probeGeneration) {
	const tokens = tokenize("{% generation %}x{% endgeneration %}", { lstrip_blocks: true, trim_blocks: true });
	process.stdout.write(JSON.stringify(tokens.length === 1 && tokens[0].value === "x") + "\n");
	process.exit(0);
}

// The engine's runtime value classes, taken from values it converts itself.
const convert = Environment.prototype.set;
const probe = new Environment();
const kinds = {
	object: convert.call(probe, "o", {}).constructor,
	array: convert.call(probe, "a", []).constructor,
	string: convert.call(probe, "s", "").constructor,
	integer: convert.call(probe, "i", 1).constructor,
	float: convert.call(probe, "f", 0.5).constructor,
	boolean: convert.call(probe, "b", true).constructor,
	null: convert.call(probe, "n", null).constructor,
};
const builtValues = new WeakSet();

// raise_exception throws this, so that its message is told apart from the
// engine's own errors.
class Raised extends Error {}

// Template.render declares its globals and arguments with Environment.set;
// values built here pass through as they are, raise_exception is ours.
Environment.prototype.set = function (name, value) {
	if (name === "raise_exception") {
		value = (message) => {
			throw new Raised(String(message));
		};
	}
	if (value !== null && typeof value === "object" && builtValues.has(value)) {
		this.variables.set(name, value);
		return value;
	}
	return convert.call(this, name, value);
};

// parseJSON parses JSON text into runtime values, recording in lossy the
// number literals JavaScript cannot keep: {literal, at, js}.
function parseJSON(text, lossy) {
	let at = 0;
	const fail = (what) => {
		throw new SyntaxError(`${what} at offset ${at}`);
	};
	const space = () => {
		while (at < text.length && " \t\n\r".includes(text[at])) at++;
	};
	const built = (v) => {
		builtValues.add(v);
		return v;
	};
	const value = () => {
		space();
		const c = text[at];
		if (c === "{") {
			at++;
			const map = new Map();
			space();
			if (text[at] === "}") {
				at++;
				return built(new kinds.object(map));
			}
			for (;;) {
				space();
				if (text[at] !== '"') fail("expected a key");
				const key = string();
				space();
				if (text[at++] !== ":") fail("expected :");
				map.set(key, value());
				space();
				const sep = text[at++];
				if (sep === "}") return built(new kinds.object(map));
				if (sep !== ",") fail("expected , or }");
			}
		}
		if (c === "[") {
			at++;
			const items = [];
			space();
			if (text[at] === "]") {
				at++;
				return built(new kinds.array(items));
			}
			for (;;) {
				items.push(value());
				space();
				const sep = text[at++];
				if (sep === "]") return built(new kinds.array(items));
				if (sep !== ",") fail("expected , or ]");
			}
		}
		if (c === '"') return built(new kinds.string(string()));
		for (const [word, v] of [["true", true], ["false", false], ["null", null]]) {
			if (text.startsWith(word, at)) {
				at += word.length;
				return built(v === null ? new kinds.null(null) : new kinds.boolean(v));
			}
		}
		const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(at, at + 400));
		if (!m || m[0] === "" || m[0] === "-") fail("unexpected character");
		at += m[0].length;
		const literal = m[0];
		const n = Number(literal);
		if (JSON.stringify(n) !== literal) lossy.push({ literal, at: at - literal.length, js: JSON.stringify(n) });
		return built(m[2] === undefined && m[3] === undefined ? new kinds.integer(n) : new kinds.float(n));
	};
	const string = () => {
		// JSON.parse decodes one string token exactly as JSON does.
		const start = at;
		at++;
		while (at < text.length && text[at] !== '"') at += text[at] === "\\" ? 2 : 1;
		if (at >= text.length) fail("unterminated string");
		at++;
		return JSON.parse(text.slice(start, at));
	};
	const v = value();
	space();
	if (at !== text.length) fail("trailing data");
	return v;
}

const ARGUMENTS = ["reasoning_effort", "model_identity", "builtin_tools", "allow_missing_thinking"];

function render(template, line) {
	const lossy = [];
	let request;
	try {
		request = parseJSON(line, lossy);
	} catch (err) {
		return { exception: `request: ${err.message}` };
	}
	if (!(request instanceof kinds.object)) return { exception: 'request: must be a JSON object with "messages"' };
	const field = (name) => request.value.get(name);
	const items = { messages: field("messages") ?? built(new kinds.null(null)) };
	if (request.value.has("tools")) items.tools = field("tools");
	const agp = field("add_generation_prompt");
	items.add_generation_prompt = agp === undefined || agp instanceof kinds.null ? true : agp;
	for (const name of ARGUMENTS) {
		if (request.value.has(name)) items[name] = field(name);
	}
	const result = {};
	try {
		result.prompt = template.render(items);
		result.spans_unknown = true;
	} catch (err) {
		if (err instanceof Raised) result.error = err.message;
		else result.exception = `${err.name}: ${err.message}`;
	}
	if (lossy.length > 0) {
		result.lossy_numbers = lossy.map((l) => l.literal);
		let js = "";
		let from = 0;
		for (const l of lossy) {
			js += line.slice(from, l.at) + l.js;
			from = l.at + l.literal.length;
			if (/^-?[0-9]+$/.test(l.literal) && !/^-?[0-9]+$/.test(l.js)) result.unrepresentable = true;
		}
		result.js_request = js + line.slice(from);
	}
	return result;
}

function built(v) {
	builtValues.add(v);
	return v;
}

const template = new Template(readFileSync(templatePath, "utf8"));
const out = [];
for (const line of readFileSync(0, "utf8").split("\n")) {
	if (line.trim() === "") continue;
	out.push(JSON.stringify(render(template, line)));
}
process.stdout.write(out.join("\n") + (out.length > 0 ? "\n" : ""));
