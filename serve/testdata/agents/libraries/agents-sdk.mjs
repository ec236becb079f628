// Runs the OpenAI Agents SDK's loop (an Agent with a get_weather tool,
// run whole and streamed) through the gateway at GATEWAY
// (http://host:port/v1) on both of its APIs, as docs/agents.md sets it up
// (store: false), and prints one line per API and mode; then
// "agents-sdk-previous", a second run carried by previousResponseId;
// exits 1 if any failed. libraries.sh runs it against the scripted engine.
import OpenAI from "openai";
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from "@openai/agents";
import { z } from "zod";

setTracingDisabled(true);
setDefaultOpenAIClient(new OpenAI({ baseURL: process.env.GATEWAY, apiKey: process.env.GATEWAY_KEY ?? "sk-local" }));
let calls = [];
const weather = tool({
  name: "get_weather",
  description: "Get the current weather for a city.",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    calls.push(city);
    return `14 C, cloudy in ${city}`;
  },
});
let failed = 0;
for (const api of ["responses", "chat_completions"]) {
  setOpenAIAPI(api);
  for (const mode of ["run", "stream"]) {
    calls = [];
    const agent = new Agent({ name: "Assistant", model: "beam", tools: [weather], modelSettings: { store: false } });
    let detail;
    let ok = false;
    try {
      let out;
      if (mode === "run") out = (await run(agent, "What is the weather in London?")).finalOutput;
      else {
        const r = await run(agent, "What is the weather in London?", { stream: true });
        for await (const _ of r) {
        }
        await r.completed;
        out = r.finalOutput;
      }
      ok = out === "It is 14 C and cloudy in London." && calls.length === 1 && calls[0] === "London";
      detail = `output ${JSON.stringify(out)}, calls ${JSON.stringify(calls)}`;
    } catch (e) {
      detail = `error: ${e.message}`;
    }
    if (!ok) failed++;
    console.log(`agents-sdk-${api} ${mode}: ${ok ? "ok" : "FAILED"} (${detail})`);
  }
}
// The second question of a conversation carried by previousResponseId
// (the gateway keeps responses with --reasoning-memory-bytes, gap
// decision 280): the first run's call and answer are the server's.
setOpenAIAPI("responses");
for (const mode of ["run", "stream"]) {
  calls = [];
  const agent = new Agent({ name: "Assistant", model: "beam", tools: [weather] });
  let detail;
  let ok = false;
  try {
    const first = await run(agent, "What is the weather in London?");
    const options = { previousResponseId: first.lastResponseId };
    let out;
    if (mode === "run") out = (await run(agent, "Thanks! Say it again.", options)).finalOutput;
    else {
      const r = await run(agent, "Thanks! Say it again.", { ...options, stream: true });
      for await (const _ of r) {
      }
      await r.completed;
      out = r.finalOutput;
    }
    // The scripted engine answers from the tool's result, which only the
    // kept conversation holds in the second run's prompt.
    ok = out === "It is 14 C and cloudy in London." && calls.length === 1;
    detail = `output ${JSON.stringify(out)}, calls ${JSON.stringify(calls)}`;
  } catch (e) {
    detail = `error: ${e.message}`;
  }
  if (!ok) failed++;
  console.log(`agents-sdk-previous ${mode}: ${ok ? "ok" : "FAILED"} (${detail})`);
}
process.exit(failed ? 1 : 0);
