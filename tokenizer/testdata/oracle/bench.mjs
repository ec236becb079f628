// Encoding speed of npm tiktoken (tiktoken's Rust core compiled to WASM),
// o200k_base, for the Go benchmark to report beside its own.
//
//   node bench.mjs FILE ITERATIONS
//
// Writes {"ns_per_op": N, "cpu_ns_per_op": C, "tokens": T}: the wall and CPU
// time of one encode_ordinary of FILE's text, averaged over ITERATIONS after
// a warm-up.
import { readFileSync } from "node:fs";
import { get_encoding } from "tiktoken";

const text = readFileSync(process.argv[2], "utf8");
const n = Math.max(1, parseInt(process.argv[3], 10));
const enc = get_encoding("o200k_base");
let tokens = enc.encode_ordinary(text).length;
for (let i = 0; i < Math.min(n, 3); i++) enc.encode_ordinary(text);
const start = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
for (let i = 0; i < n; i++) tokens = enc.encode_ordinary(text).length;
const cpu = process.cpuUsage(cpu0);
const ns = Number(process.hrtime.bigint() - start) / n;
enc.free();
const cpuNs = ((cpu.user + cpu.system) * 1000) / n;
process.stdout.write(JSON.stringify({ ns_per_op: ns, cpu_ns_per_op: cpuNs, tokens }));
