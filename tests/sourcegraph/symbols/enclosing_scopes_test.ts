/**
 * The container of a definition found from the nodes' places in the text:
 * the innermost container whose text encloses it (a Rust `impl` block its
 * type), none when none does, a container that starts where the definition
 * does and ends sooner is inside it, not around it; and where the places
 * cannot tell (a container of the definition's own range, two containers of
 * one range, an empty definition) the walk up the parents answers. Trees
 * here are made of plain objects in the shape the parser's nodes have.
 */

import { assertEquals } from "../../support/assert.ts";
import type { Node } from "web-tree-sitter";
import {
  type Container,
  enclosingContainers,
} from "../../../sourcegraph/symbols/enclosing_scopes.ts";

interface FakeNode {
  id: number;
  type: string;
  startIndex: number;
  endIndex: number;
  parent: FakeNode | null;
  childForFieldName(name: string): { text: string } | null;
}

// A node of `type` spanning [start, end) under `parent`.
function node(
  id: number,
  span: [number, number],
  at: { parent?: FakeNode; type?: string; implType?: string } = {},
): FakeNode {
  return {
    id,
    type: at.type ?? "item",
    startIndex: span[0],
    endIndex: span[1],
    parent: at.parent ?? null,
    childForFieldName: (name) =>
      name === "type" && at.implType !== undefined ? { text: at.implType } : null,
  };
}

const asNode = (fake: FakeNode) => fake as unknown as Node;

function containersOf(
  definitions: FakeNode[],
  at: { containers: [FakeNode, Container][]; impls?: FakeNode[]; empty?: FakeNode[] },
): (string | null)[] {
  return enclosingContainers(
    definitions.map((fake) => ({ node: asNode(fake), empty: at.empty?.includes(fake) ?? false })),
    {
      containers: new Map(at.containers.map(([fake, container]) => [fake.id, container])),
      nodes: at.containers.map(([fake]) => asNode(fake)),
      impls: (at.impls ?? []).map(asNode),
    },
  ).map((container) => container?.name ?? null);
}

Deno.test("enclosing containers: the innermost container whose text encloses a definition", () => {
  const root = node(1, [0, 100], { type: "program" });
  const outer = node(2, [0, 60], { parent: root });
  const inner = node(3, [10, 50], { parent: outer });
  const method = node(4, [20, 30], { parent: inner });
  const field = node(5, [52, 58], { parent: outer });
  const free = node(6, [70, 80], { parent: root });
  const impl = node(7, [80, 100], { parent: root, type: "impl_item", implType: "Point" });
  const implFn = node(8, [85, 95], { parent: impl });
  assertEquals(
    containersOf([method, field, free, inner, outer, implFn], {
      containers: [[outer, { name: "Outer", kind: "module" }], [inner, {
        name: "Inner",
        kind: "class",
      }]],
      impls: [impl],
    }),
    ["Inner", "Outer", null, "Outer", null, "Point"],
  );
});

Deno.test("enclosing containers: a container that starts with a definition and ends sooner is inside it", () => {
  const root = node(1, [0, 100], { type: "program" });
  const definition = node(2, [10, 60], { parent: root });
  const within = node(3, [10, 20], { parent: definition });
  const around = node(4, [0, 90], { parent: root });
  definition.parent = around;
  assertEquals(
    containersOf([definition], {
      containers: [[around, { name: "Around", kind: "module" }], [within, {
        name: "Within",
        kind: "class",
      }]],
    }),
    ["Around"],
  );
});

Deno.test("enclosing containers: where the places cannot tell, the parents answer", () => {
  const root = node(1, [0, 100], { type: "program" });
  // A definition whose node spans what a container's does: the container is its child here,
  // so it does not enclose it.
  const outer = node(2, [0, 100], { parent: root });
  const definition = node(3, [10, 60], { parent: outer });
  const same = node(4, [10, 60], { parent: definition });
  // Two containers of one range: the parent is the nearer.
  const twinOuter = node(5, [70, 90], { parent: root });
  const twinInner = node(6, [70, 90], { parent: twinOuter });
  const inTwins = node(7, [75, 80], { parent: twinInner });
  // An empty definition: only its parent tells (its place is inside Outer's text).
  const empty = node(8, [95, 95], { parent: root });
  assertEquals(
    containersOf([definition, inTwins, empty], {
      containers: [
        [outer, { name: "Outer", kind: "module" }],
        [same, { name: "Same", kind: "class" }],
        [twinInner, { name: "TwinInner", kind: "class" }],
        [twinOuter, { name: "TwinOuter", kind: "module" }],
      ],
      empty: [empty],
    }),
    ["Outer", "TwinInner", null],
  );
});
