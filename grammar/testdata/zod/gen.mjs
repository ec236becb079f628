// Writes the JSON Schemas that the official openai package's
// zodResponseFormat (openai 7.60.0, zod 4.6.7) makes of two zod objects:
// contact.json (every field strict compiles) and refused.json (the fields
// strict refuses: a custom format with no pattern, and hostname's
// Punycode). Not run by the tests, which read the files; to write them
// again:
//   npm install openai@7.60.0 zod@4.6.7 && node gen.mjs
import { writeFileSync } from "node:fs";
import { z } from "zod";
import { zodResponseFormat } from "openai/helpers/zod";

const Contact = z.object({
  name: z.string().min(1).max(100),
  email: z.email(),
  id: z.uuid(),
  website: z.url().nullable(),
  born: z.iso.date(),
  seen: z.iso.datetime(),
  at: z.iso.time(),
  age: z.number().int().min(0).max(150),
  score: z.number().gte(0).lte(1),
  role: z.enum(["admin", "user"]),
  tags: z.array(z.string()).max(5),
  nick: z.string().nullable(),
  ip: z.ipv4(),
  ip6: z.ipv6(),
  slug: z.string().regex(/^[a-z0-9-]+$/),
  nested: z.object({ a: z.boolean(), b: z.literal("x") }),
  union: z.union([z.string(), z.number()]),
  disc: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("a"), x: z.number() }),
    z.object({ kind: z.literal("b"), y: z.string() }),
  ]),
  def: z.string().default("d"),
  cuid: z.cuid(),
  e164: z.e164(),
  nanoid: z.nanoid(),
  ulid: z.ulid(),
  cidr: z.cidrv4(),
  dur: z.iso.duration(),
  emoji: z.emoji(),
});
const Refused = z.object({
  jwt: z.jwt(),
  hostname: z.hostname(),
});
for (const [file, schema] of [["contact.json", Contact], ["refused.json", Refused]]) {
  writeFileSync(file, JSON.stringify(zodResponseFormat(schema, "x").json_schema.schema, null, 1) + "\n");
}
