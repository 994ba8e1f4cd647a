/**
 * Member and statement separators written into a TypeScript file the
 * grammar cannot parse as it stands. Tree-sitter's TypeScript grammar
 * (0.23.2) reads a call signature that starts a line (`<T>(…): R` or
 * `(…): R`) as the continuation of the member above when nothing but a
 * newline parts them: in an interface whose signatures are overloads,
 * `): [H<E, P>]` newline `<I extends Input>(…)` becomes one expression and
 * the rest of the interface, often the rest of the file, one parse error
 * (hono's `src/types.ts`: one error over all of its 2,779 lines).
 *
 * On a line whose first non-blank character is `<` or `(`, after a line that
 * does not end an expression half-way (a `;`, `,`, an opening bracket, `=>`,
 * an operator, a keyword that needs what follows), the whitespace character
 * just before that first character becomes `;`: an empty member of an
 * object type, an empty statement of a block. Every code unit keeps its
 * index, so every line and column stays where it was; a line with no
 * indentation has no whitespace to give and is left alone. Comment lines
 * are skipped when looking for the line before. The caller keeps this text
 * only when its parse has fewer errors than the plain one: where `(` on a
 * new line does continue a call, the separator adds errors or removes none.
 *
 * @module
 */

// A line that ends with one of these (trimmed) leaves its expression open.
const OPEN_ENDINGS = [";", ",", "{", "(", "[", "=>"];
const OPERATOR_ENDING = /[=+\-*/%&|^!~?:.<]$/;
const OPEN_WORD_ENDING =
  /(?:^|[^\w$])(?:extends|keyof|typeof|new|await|yield|in|of|instanceof|as|is|case|else|return|throw|void|delete)$/;

/**
 * `text` with `;` written before each line that starts with `<` or `(` and
 * follows a line that ends a member or statement (see the module's header);
 * `text` itself when no line qualifies.
 */
export function separateSignatureLines(text: string): string {
  const lines = text.split("\n");
  const positions: number[] = [];
  let offset = 0;
  let previous = "";
  for (const line of lines) {
    const trimmed = line.trim();
    const first = line.length - line.trimStart().length;
    if (
      (trimmed.startsWith("<") || trimmed.startsWith("(")) && first > 0 &&
      previous !== "" && endsMember(previous)
    ) {
      positions.push(offset + first - 1);
    }
    if (trimmed !== "" && !isCommentLine(trimmed)) previous = trimmed;
    offset += line.length + 1;
  }
  if (positions.length === 0) return text;
  const units = text.split("");
  for (const position of positions) units[position] = ";";
  return units.join("");
}

function endsMember(line: string): boolean {
  if (OPEN_ENDINGS.some((ending) => line.endsWith(ending))) return false;
  return !OPERATOR_ENDING.test(line) && !OPEN_WORD_ENDING.test(line);
}

function isCommentLine(trimmed: string): boolean {
  return trimmed.startsWith("//") || trimmed.startsWith("/*") || trimmed.startsWith("*");
}
