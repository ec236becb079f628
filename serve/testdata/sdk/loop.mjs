// Runs the tool loops of serve's Go SDK tests with the official TypeScript
// clients against a gateway: node loop.mjs BASE_URL. Each check prints one
// line "ok NAME" or "FAIL NAME: why"; the exit code is the number of
// failures. The gateway's fake engine calls get_weather once for London,
// twice for "London and Paris", and answers once the results are in.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";

const base = process.argv[2];
if (!base) {
  console.error("usage: node loop.mjs BASE_URL");
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

const schema = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer", description: "Forecast length in days" } },
  required: ["city"],
};

// Messages API.
const weatherTool = { name: "get_weather", description: "Get the current weather for a city.", input_schema: schema };
const results = { London: "14 C, cloudy", Paris: "9 C, rain" };

async function messagesTurn(params, streamed) {
  if (!streamed) return anthropic.messages.create(params);
  return anthropic.messages.stream(params).finalMessage();
}

async function messagesLoop(question, calls, answer, streamed) {
  const params = { model: "beam", max_tokens: 4096, tools: [weatherTool], messages: [{ role: "user", content: question }] };
  const msg = await messagesTurn(params, streamed);
  expect(msg.stop_reason === "tool_use", "stop_reason " + msg.stop_reason);
  const [thinking, ...uses] = msg.content;
  expect(thinking.type === "thinking" && thinking.thinking.length > 0 && thinking.signature.length > 0, "thinking block " + JSON.stringify(thinking));
  expect(uses.length === calls && uses.every((u) => u.type === "tool_use" && u.id.startsWith("toolu_")), "tool_use blocks " + JSON.stringify(uses));
  params.messages.push({ role: "assistant", content: msg.content });
  params.messages.push({
    role: "user",
    content: uses.map((u) => ({ type: "tool_result", tool_use_id: u.id, content: results[u.input.city] })),
  });
  const msg2 = await messagesTurn(params, streamed);
  const text = msg2.content.filter((b) => b.type === "text").map((b) => b.text).join("");
  expect(msg2.stop_reason === "end_turn" && text === answer, "second turn " + JSON.stringify(msg2));
  return msg;
}

for (const streamed of [false, true]) {
  const how = streamed ? "streamed" : "non-streamed";
  await check(`messages tool loop (${how})`, () =>
    messagesLoop("What's the weather in London?", 1, "It is 14 C and cloudy in London.", streamed));
  await check(`messages parallel calls (${how})`, () =>
    messagesLoop("Weather in London and Paris?", 2, "London 14 C, Paris 9 C.", streamed));
}

await check("messages edited thinking is refused", async () => {
  const params = { model: "beam", max_tokens: 4096, tools: [weatherTool], messages: [{ role: "user", content: "What's the weather in London?" }] };
  const msg = await anthropic.messages.create(params);
  const content = structuredClone(msg.content);
  content[0].thinking = "Something else.";
  params.messages.push({ role: "assistant", content });
  params.messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: content[1].id, content: "14 C, cloudy" }] });
  try {
    await anthropic.messages.create(params);
  } catch (e) {
    expect(e instanceof Anthropic.BadRequestError && e.status === 400, "error " + e);
    expect(e.error && e.error.error && e.error.error.type === "invalid_request_error", "error body " + JSON.stringify(e.error));
    return;
  }
  throw new Error("the edited thinking was accepted");
});

await check("messages dropped thinking is refused", async () => {
  const params = { model: "beam", max_tokens: 4096, tools: [weatherTool], messages: [{ role: "user", content: "What's the weather in London?" }] };
  const msg = await anthropic.messages.create(params);
  params.messages.push({ role: "assistant", content: msg.content.slice(1) });
  params.messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: msg.content[1].id, content: "14 C, cloudy" }] });
  try {
    await anthropic.messages.create(params);
  } catch (e) {
    expect(e.status === 400, "error " + e);
    return;
  }
  throw new Error("the history without thinking was accepted");
});

// Responses API.
const fnTool = { type: "function", name: "get_weather", description: "Get the current weather for a city.", parameters: schema, strict: false };

async function responsesTurn(params, streamed) {
  if (!streamed) return openai.responses.create(params);
  const stream = openai.responses.stream(params);
  let seq = 0;
  for await (const ev of stream) {
    expect(ev.sequence_number === seq, `event ${ev.type} has sequence_number ${ev.sequence_number}, want ${seq}`);
    seq++;
  }
  return stream.finalResponse();
}

async function responsesLoop(question, calls, answer, streamed) {
  const input = [{ role: "user", content: question }];
  const params = { model: "beam", tools: [fnTool], store: false, input };
  const r = await responsesTurn(params, streamed);
  expect(r.status === "completed", "status " + r.status);
  const [reasoning, ...fcs] = r.output;
  expect(reasoning.type === "reasoning" && reasoning.encrypted_content && reasoning.content[0].text.length > 0, "reasoning item " + JSON.stringify(reasoning));
  expect(fcs.length === calls && fcs.every((f) => f.type === "function_call"), "function calls " + JSON.stringify(fcs));
  input.push(...r.output);
  for (const f of fcs) input.push({ type: "function_call_output", call_id: f.call_id, output: results[JSON.parse(f.arguments).city] });
  const r2 = await responsesTurn(params, streamed);
  expect(r2.output_text === answer, "second turn " + JSON.stringify(r2.output));
}

for (const streamed of [false, true]) {
  const how = streamed ? "streamed" : "non-streamed";
  await check(`responses tool loop (${how})`, () =>
    responsesLoop("What's the weather in London?", 1, "It is 14 C and cloudy in London.", streamed));
  await check(`responses parallel calls (${how})`, () =>
    responsesLoop("Weather in London and Paris?", 2, "London 14 C, Paris 9 C.", streamed));
}

await check("responses edited reasoning is refused", async () => {
  const input = [{ role: "user", content: "What's the weather in London?" }];
  const r = await openai.responses.create({ model: "beam", tools: [fnTool], input });
  const output = structuredClone(r.output);
  output[0].content[0].text = "Something else.";
  input.push(...output, { type: "function_call_output", call_id: output[1].call_id, output: "14 C, cloudy" });
  try {
    await openai.responses.create({ model: "beam", tools: [fnTool], input });
  } catch (e) {
    expect(e instanceof OpenAI.BadRequestError && e.code === "invalid_reasoning_signature", "error " + e);
    return;
  }
  throw new Error("the edited reasoning was accepted");
});

await check("responses dropped reasoning is refused", async () => {
  const input = [{ role: "user", content: "What's the weather in London?" }];
  const r = await openai.responses.create({ model: "beam", tools: [fnTool], input });
  input.push(r.output[1], { type: "function_call_output", call_id: r.output[1].call_id, output: "14 C, cloudy" });
  try {
    await openai.responses.create({ model: "beam", tools: [fnTool], input });
  } catch (e) {
    expect(e.status === 400 && e.code === "missing_reasoning", "error " + e);
    return;
  }
  throw new Error("the history without reasoning was accepted");
});

console.log(`${passes} passed, ${failures} failed`);
process.exit(failures);
