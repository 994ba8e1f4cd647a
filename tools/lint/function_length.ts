/**
 * A lint rule for the sourcegraph service: no function longer than 60 lines.
 * A longer one needs a comment that says why, then
 * `// deno-lint-ignore function-length/max-lines` above it.
 *
 * @module
 */

const MAX_LINES = 60;

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

const plugin: Deno.lint.Plugin = {
  name: "function-length",
  rules: {
    "max-lines": {
      create(context) {
        if (!/\/sourcegraph\//.test(context.filename.replaceAll("\\", "/"))) return {};
        const check = (node: Deno.lint.Node, name: string) => {
          const text = context.sourceCode.text;
          const lines = lineOf(text, node.range[1]) - lineOf(text, node.range[0]) + 1;
          if (lines > MAX_LINES) {
            context.report({
              node,
              message: `${name} is ${lines} lines long (at most ${MAX_LINES})`,
              hint: "split it into named steps, or say in a comment why it is one function",
            });
          }
        };
        return {
          FunctionDeclaration(node) {
            check(node, node.id?.name ?? "a function");
          },
          MethodDefinition(node) {
            check(node, node.key.type === "Identifier" ? node.key.name : "a method");
          },
          "VariableDeclarator > ArrowFunctionExpression"(node: Deno.lint.ArrowFunctionExpression) {
            check(node, "an arrow function");
          },
        };
      },
    },
  },
};

export default plugin;
