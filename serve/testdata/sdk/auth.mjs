// Checks API keys and TLS with the official TypeScript clients against a
// gateway that requires KEY: node auth.mjs BASE_URL KEY. The gateway's
// certificate is trusted through NODE_EXTRA_CA_CERTS. Each check prints one
// line "ok NAME" or "FAIL NAME: why"; the exit code is the number of
// failures.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";

const [base, key] = process.argv.slice(2);
if (!base || !key) {
  console.error("usage: node auth.mjs BASE_URL KEY");
  process.exit(2);
}

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

const anthropic = (apiKey) => new Anthropic({ baseURL: base, apiKey, maxRetries: 0 });
const anthropicToken = (authToken) => new Anthropic({ baseURL: base, apiKey: null, authToken, maxRetries: 0 });
// The key in x-api-key, as Claude Code and earlier SDK releases send it.
const anthropicXKey = (k) => new Anthropic({ baseURL: base, apiKey: null, authToken: null, defaultHeaders: { "x-api-key": k }, maxRetries: 0 });
const openai = (apiKey) => new OpenAI({ baseURL: base + "/v1", apiKey, maxRetries: 0 });
const messages = { model: "beam", max_tokens: 1024, messages: [{ role: "user", content: "What's the weather in London?" }] };

await check("anthropic api key", async () => {
  const msg = await anthropic(key).messages.create(messages);
  expect(msg.stop_reason === "tool_use", "stop_reason " + msg.stop_reason);
});
await check("anthropic x-api-key header", async () => {
  const msg = await anthropicXKey(key).messages.create(messages);
  expect(msg.stop_reason === "tool_use", "stop_reason " + msg.stop_reason);
});
await check("anthropic auth token (bearer)", async () => {
  const msg = await anthropicToken(key).messages.create(messages);
  expect(msg.stop_reason === "tool_use", "stop_reason " + msg.stop_reason);
});
await check("anthropic stream with the key", async () => {
  const msg = await anthropic(key).messages.stream(messages).finalMessage();
  expect(msg.stop_reason === "tool_use", "stop_reason " + msg.stop_reason);
});
for (const [name, client] of [
  ["anthropic wrong api key", anthropic("sk-wrong")],
  ["anthropic wrong auth token", anthropicToken("sk-wrong")],
  ["anthropic wrong x-api-key header", anthropicXKey("sk-wrong")],
]) {
  await check(name, async () => {
    try {
      await client.messages.create(messages);
    } catch (e) {
      expect(e instanceof Anthropic.AuthenticationError, "not an AuthenticationError: " + e);
      expect(e.status === 401 && e.error && e.error.error && e.error.error.type === "authentication_error", "error " + JSON.stringify(e.error));
      return;
    }
    throw new Error("no error");
  });
}

await check("openai chat with the key", async () => {
  const c = await openai(key).chat.completions.create({ model: "beam", messages: [{ role: "user", content: "What's the weather in London?" }] });
  expect(c.choices[0].finish_reason === "stop" || c.choices[0].finish_reason === "tool_calls", "finish_reason " + c.choices[0].finish_reason);
});
await check("openai responses with the key", async () => {
  const r = await openai(key).responses.create({ model: "beam", input: "What's the weather in London?" });
  expect(r.status === "completed", "status " + r.status);
});
for (const [name, call] of [
  ["openai chat with a wrong key", (c) => c.chat.completions.create({ model: "beam", messages: [{ role: "user", content: "Hi" }] })],
  ["openai responses with a wrong key", (c) => c.responses.create({ model: "beam", input: "Hi" })],
  ["openai models with a wrong key", (c) => c.models.list()],
]) {
  await check(name, async () => {
    try {
      await call(openai("sk-wrong"));
    } catch (e) {
      expect(e instanceof OpenAI.AuthenticationError, "not an AuthenticationError: " + e);
      expect(e.status === 401 && e.code === "invalid_api_key", "status " + e.status + " code " + e.code);
      return;
    }
    throw new Error("no error");
  });
}

console.log(`${passes} passed, ${failures} failed`);
process.exit(failures);
