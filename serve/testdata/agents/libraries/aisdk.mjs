// Runs the Vercel AI SDK's tool loop (generateText and streamText, a
// get_weather tool, stopWhen after 4 steps) through the gateway at
// GATEWAY (http://host:port/v1) with each of its providers that speaks an
// API the gateway serves, and prints one line per provider and mode; exits
// 1 if any failed. libraries.sh runs it against the scripted engine, which
// calls get_weather for London once and then answers.
import { generateText, streamText, tool, stepCountIs } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { z } from "zod";

const base = process.env.GATEWAY;
const key = process.env.GATEWAY_KEY ?? "sk-local";
const only = process.argv.slice(2);
const models = {
  "openai-compatible": createOpenAICompatible({ name: "beam", baseURL: base, apiKey: key })("beam"),
  "openai-responses": createOpenAI({ baseURL: base, apiKey: key }).responses("beam"),
  // The same with store off: it sends the items themselves, not references.
  "openai-responses-store-false": createOpenAI({ baseURL: base, apiKey: key }).responses("beam"),
  "openai-chat": createOpenAI({ baseURL: base, apiKey: key }).chat("beam"),
  anthropic: createAnthropic({ baseURL: base, apiKey: key })("beam"),
};
const tools = {
  get_weather: tool({
    description: "Get the current weather for a city.",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => `14 C, cloudy in ${city}`,
  }),
};
let failed = 0;
for (const [name, model] of Object.entries(models)) {
  if (only.length && !only.includes(name)) continue;
  for (const mode of ["generate", "stream"]) {
    const args = { model, tools, stopWhen: stepCountIs(4), maxOutputTokens: 1024, prompt: "What is the weather in London?" };
    if (name === "openai-responses-store-false") args.providerOptions = { openai: { store: false } };
    let error;
    let r;
    try {
      if (mode === "generate") r = await generateText(args);
      else {
        const s = streamText({ ...args, onError: ({ error: e }) => { error = e; } });
        let text = "";
        for await (const t of s.textStream) text += t;
        r = { text, steps: await s.steps };
      }
    } catch (e) {
      error = e;
    }
    const calls = r ? r.steps.flatMap((st) => st.toolCalls.map((c) => c.input)) : [];
    const ok = !error && r.text === "It is 14 C and cloudy in London." && calls.length === 1 && calls[0].city === "London";
    if (!ok) failed++;
    const detail = error ? `error: ${error.message}` : `text ${JSON.stringify(r.text)}, calls ${JSON.stringify(calls)}, ${r.steps.length} steps`;
    console.log(`${name} ${mode}: ${ok ? "ok" : "FAILED"} (${detail})`);
  }
}
process.exit(failed ? 1 : 0);
