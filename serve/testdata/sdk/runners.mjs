// Runs the official TypeScript clients' own tool loops against a gateway:
// Anthropic's tool runner and message threads (the beta
// message-threads-2026-08-12 of @anthropic-ai/sdk), and OpenAI's
// chat.completions.runTools and the Responses API's previous_response_id:
// node runners.mjs BASE_URL MODE. MODE "memory": the gateway keeps what
// it wrote (--reasoning-memory-bytes): it holds threads and responses,
// each turn after the first sending only the new messages, and gives
// runTools' turns back their reasoning; "stateless": it refuses threads
// with thread_unsupported_request, on which the tool runner, and a thread
// asked to, send the whole conversation instead, previous_response_id
// with its stateless 400, and runTools' second turn, without its
// reasoning, with missing_reasoning. Prints "ok NAME" or
// "FAIL NAME: why" per check; the exit code is the number of failures.
// The gateway's fake engine calls get_weather for London, then answers.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";

const [base, mode] = process.argv.slice(2);
if (!base || !["memory", "stateless"].includes(mode)) {
  console.error("usage: node runners.mjs BASE_URL memory|stateless");
  process.exit(2);
}
const anthropic = new Anthropic({ baseURL: base, apiKey: "unused", maxRetries: 0 });
const openai = new OpenAI({ baseURL: base + "/v1", apiKey: "unused", maxRetries: 0 });
let failures = 0;
let passes = 0;
async function check(name, fn) {
  try {
    await fn();
    passes++;
    console.log("ok " + name);
  } catch (e) {
    failures++;
    console.log("FAIL " + name + ": " + (e && e.stack ? e.stack : e));
  }
}
function expect(cond, what) {
  if (!cond) throw new Error(what);
}
const answer = "It is 14 C and cloudy in London.";
const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const question = { role: "user", content: "What's the weather in London?" };
const textOf = (m) => m.content.filter((b) => b.type === "text").map((b) => b.text).join("");

for (const stream of [false, true]) {
  await check("tool runner" + (stream ? " streamed" : ""), async () => {
    const calls = [];
    const runner = anthropic.beta.messages.toolRunner({
      model: "beam", max_tokens: 1024, stream, messages: [question],
      tools: [{ name: "get_weather", description: "Get the current weather for a city.", input_schema: schema,
        run: async (input) => { calls.push(input); return "14 C, cloudy"; } }],
    });
    let last;
    for await (const item of runner) last = stream ? await item.finalMessage() : item;
    expect(textOf(last) === answer, "answer " + JSON.stringify(last.content));
    expect(calls.length === 1 && calls[0].city === "London", "calls " + JSON.stringify(calls));
  });
}

// A thread's two turns: the call, then its result.
async function twoTurns(thread, stream) {
  const send = (m) => (stream ? thread.stream(m).finalMessage() : thread.send(m));
  const first = await send(question);
  const use = first.content.find((b) => b.type === "tool_use");
  expect(use && use.input.city === "London", "first reply " + JSON.stringify(first.content));
  const second = await send({ role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "14 C, cloudy" }] });
  expect(textOf(second) === answer, "second reply " + JSON.stringify(second.content));
  expect(thread.messages.length === 4, thread.messages.length + " messages in the thread");
  return second;
}
const weather = { name: "get_weather", description: "Get the current weather for a city.", input_schema: schema };
if (mode === "memory") {
  for (const stream of [false, true]) {
    await check("thread" + (stream ? " streamed" : ""), async () => {
      const thread = anthropic.beta.messages.thread({ model: "beam", max_tokens: 1024, tools: [weather] });
      const second = await twoTurns(thread, stream);
      expect(thread.previousMessageId === second.id, "the thread continues from " + thread.previousMessageId);
    });
  }
} else {
  await check("thread refused", async () => {
    const thread = anthropic.beta.messages.thread({ model: "beam", max_tokens: 1024, tools: [weather] });
    try {
      await thread.send(question);
    } catch (e) {
      expect(e instanceof Anthropic.ThreadUnsupportedRequestError, "error " + e);
      return;
    }
    throw new Error("the thread was accepted");
  });
  await check("thread continued unthreaded", async () => {
    const thread = anthropic.beta.messages.thread({ model: "beam", max_tokens: 1024, tools: [weather], unsupportedRequestBehavior: "continue_unthreaded" });
    await twoTurns(thread, false);
    expect(thread.previousMessageId === null, "the thread continues from " + thread.previousMessageId);
  });
}
// OpenAI's runner sends its turns back without reasoning_content.
const runTools = (stream, calls) =>
  openai.chat.completions.runTools({
    model: "beam", stream, messages: [question],
    tools: [{ type: "function", function: { name: "get_weather", description: "Get the current weather for a city.", parameters: schema,
      parse: JSON.parse, function: async (input) => { calls.push(input); return "14 C, cloudy"; } } }],
  }).finalContent();
if (mode === "memory") {
  for (const stream of [false, true]) {
    await check("runTools" + (stream ? " streamed" : ""), async () => {
      const calls = [];
      const text = await runTools(stream, calls);
      expect(text === answer, "answer " + JSON.stringify(text));
      expect(calls.length === 1 && calls[0].city === "London", "calls " + JSON.stringify(calls));
    });
  }
} else {
  await check("runTools refused", async () => {
    try {
      await runTools(false, []);
    } catch (e) {
      expect(e.status === 400 && e.code === "missing_reasoning", "error " + e);
      return;
    }
    throw new Error("the turn without its reasoning was accepted");
  });
}
// The Responses API's own conversation state: previous_response_id.
const fnTool = { type: "function", name: "get_weather", description: "Get the current weather for a city.", parameters: schema };
async function previousLoop() {
  const first = await openai.responses.create({ model: "beam", tools: [fnTool], input: "What's the weather in London?" });
  const call = first.output.find((i) => i.type === "function_call");
  expect(call && JSON.parse(call.arguments).city === "London", "first output " + JSON.stringify(first.output));
  const second = await openai.responses.create({ model: "beam", tools: [fnTool], previous_response_id: first.id,
    input: [{ type: "function_call_output", call_id: call.call_id, output: "14 C, cloudy" }] });
  expect(second.output_text === answer, "second output " + JSON.stringify(second.output));
  expect(second.previous_response_id === first.id && second.store === true, "previous_response_id " + second.previous_response_id);
}
if (mode === "memory") {
  await check("responses previous_response_id", previousLoop);
} else {
  await check("responses previous_response_id refused", async () => {
    try {
      await previousLoop();
    } catch (e) {
      expect(e.status === 400 && e.code === "stateless", "error " + e);
      return;
    }
    throw new Error("previous_response_id was accepted");
  });
}
console.log(`${passes} passed, ${failures} failed`);
process.exit(failures);
