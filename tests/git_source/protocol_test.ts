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

Deno.test("gitBatchResult carries the page only in structuredContent", () => {
  const page = { token: "t:0", updates: [update as never] };
  assertEquals(gitBatchResult(page), {
    content: [{ type: "text", text: "1 committed source update." }],
    structuredContent: page,
  });
  assertEquals(
    gitBatchResult({ token: "t:0", updates: [] }).content[0].text,
    "0 committed source updates.",
  );
});
