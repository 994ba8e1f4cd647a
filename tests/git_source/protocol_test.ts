import { assert, assertEquals } from "../support/assert.ts";
import { gitBatchResult, GitBatchSchema, GitUpdateSchema } from "../../git_source/protocol.ts";

const revision = "a".repeat(40);
const update = {
  id: "docs/guide.md",
  revision,
  previous: null,
  kind: "source",
  state: "active",
  text: "body",
};

Deno.test("the feed schemas accept the documented shapes", () => {
  assert(GitUpdateSchema.safeParse(update).success);
  assert(
    GitUpdateSchema.safeParse({ ...update, state: "withdrawn", previous: "b".repeat(64) }).success,
  );
  assert(GitBatchSchema.safeParse({ token: "id:0", updates: [update] }).success);
  assert(GitBatchSchema.safeParse({ token: "id:0", updates: [] }).success);
});

Deno.test("the feed schemas are strict", () => {
  const bad = [
    { ...update, extra: 1 },
    { ...update, state: "present" },
    { ...update, kind: "test" },
    { ...update, revision: "A".repeat(40) },
    { ...update, revision: "a".repeat(39) },
    { ...update, previous: "short" },
    { ...update, id: "" },
  ];
  for (const value of bad) assertEquals(GitUpdateSchema.safeParse(value).success, false);
  assertEquals(GitBatchSchema.safeParse({ token: "", updates: [] }).success, false);
  assertEquals(GitBatchSchema.safeParse({ token: "x".repeat(257), updates: [] }).success, false);
  assertEquals(
    GitBatchSchema.safeParse({ token: "t", updates: [], has_more: true }).success,
    false,
  );
  const tooMany = Array.from({ length: 201 }, () => update);
  assertEquals(GitBatchSchema.safeParse({ token: "t", updates: tooMany }).success, false);
});

Deno.test("gitBatchResult repeats each update's text after the count", () => {
  const withdrawn = { ...update, id: "old.txt", state: "withdrawn", text: "old.txt was removed" };
  const page = { token: "t:0", updates: [update as never, withdrawn as never] };
  assertEquals(gitBatchResult(page), {
    content: [
      { type: "text", text: "2 committed source updates." },
      { type: "text", text: "body" },
      { type: "text", text: "old.txt was removed" },
    ],
    structuredContent: page,
  });
  assertEquals(gitBatchResult({ token: "t:1", updates: [] }).content, [
    { type: "text", text: "0 committed source updates." },
  ]);
});

Deno.test("gitBatchResult stays within its byte bound: texts that do not fit are named, not repeated", () => {
  const big = { ...update, text: "x".repeat(2000) };
  const page = { token: "t:0", updates: [big as never] };
  const result = gitBatchResult(page, { maxBytes: 3000 });
  assert(new TextEncoder().encode(JSON.stringify(result)).length <= 3000);
  assertEquals(result.structuredContent, page);
  assertEquals(
    result.content[1].text,
    "docs/guide.md: text in structuredContent.updates[0]",
  );
  assertEquals(gitBatchResult(page, { maxBytes: 5000 }).content[1].text, big.text);
});
