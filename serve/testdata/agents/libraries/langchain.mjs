// Runs a LangChain.js tool loop (a model with get_weather bound: the call,
// the tool's result, the answer; invoke and stream) through the gateway at
// GATEWAY (http://host:port/v1) with ChatOpenAI (Chat Completions, and
// Responses with useResponsesApi) and ChatAnthropic (Messages), and prints
// one line per model and mode; exits 1 if any failed. libraries.sh runs it
// against the scripted engine, which calls get_weather for London once and
// then answers.
import { ChatOpenAI } from "@langchain/openai";
import { ChatAnthropic } from "@langchain/anthropic";
import { tool } from "@langchain/core/tools";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { z } from "zod";

const base = process.env.GATEWAY;
const key = process.env.GATEWAY_KEY ?? "sk-local";
const weather = tool(async ({ city }) => `14 C, cloudy in ${city}`, {
  name: "get_weather",
  description: "Get the current weather for a city.",
  schema: z.object({ city: z.string() }),
});
const models = {
  "langchain-openai-chat": new ChatOpenAI({ model: "beam", apiKey: key, configuration: { baseURL: base } }),
  "langchain-openai-responses": new ChatOpenAI({ model: "beam", apiKey: key, useResponsesApi: true, configuration: { baseURL: base } }),
  "langchain-anthropic": new ChatAnthropic({ model: "beam", apiKey: key, anthropicApiUrl: base.replace(/\/v1$/, "") }),
};
let failed = 0;
for (const [name, chat] of Object.entries(models)) {
  for (const mode of ["invoke", "stream"]) {
    const model = chat.bindTools([weather]);
    const msgs = [new HumanMessage("What is the weather in London?")];
    const turn = async () => {
      if (mode === "invoke") return model.invoke(msgs);
      let acc;
      for await (const chunk of await model.stream(msgs)) acc = acc ? acc.concat(chunk) : chunk;
      return acc;
    };
    let detail;
    let ok = false;
    try {
      const ai = await turn();
      msgs.push(ai);
      for (const tc of ai.tool_calls ?? []) msgs.push(new ToolMessage({ content: await weather.invoke(tc.args), tool_call_id: tc.id }));
      const last = await turn();
      const text = typeof last.content === "string" ? last.content : last.content.filter((p) => p.type === "text").map((p) => p.text).join("");
      const calls = (ai.tool_calls ?? []).map((c) => c.args);
      ok = calls.length === 1 && calls[0].city === "London" && text === "It is 14 C and cloudy in London.";
      detail = `text ${JSON.stringify(text)}, calls ${JSON.stringify(calls)}`;
    } catch (e) {
      detail = `error: ${e.message}`;
    }
    if (!ok) failed++;
    console.log(`${name} ${mode}: ${ok ? "ok" : "FAILED"} (${detail})`);
  }
}
process.exit(failed ? 1 : 0);
