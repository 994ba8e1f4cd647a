/**
 * One line of code as a page shows it: its highlighted segments as spans
 * with their scope class, and the ranges a search matched in `<mark>` (one
 * mark per range, around the spans it covers). Every text is escaped by the
 * JSX; classes come only from highlight.js's scope names.
 *
 * @module
 */

import type { Html } from "../layout.tsx";
import { type CodeLine, markedSegments } from "./highlighted_lines.ts";

function piece(text: string, scope: string | null): Html | string {
  return scope === null ? text : <span class={scope}>{text}</span>;
}

/** The cell content of a line `text`, highlighted as `highlighted` (null: plain). */
export function CodeText(props: {
  text: string;
  highlighted?: CodeLine | null;
  ranges?: readonly [number, number][];
}): Html {
  const segments = props.highlighted ?? [{ text: props.text, scope: null }];
  const pieces = markedSegments(segments, props.ranges ?? []);
  const out: (Html | string)[] = [];
  for (let i = 0; i < pieces.length;) {
    const range = pieces[i].range;
    if (range === null) {
      out.push(piece(pieces[i].text, pieces[i].scope));
      i++;
      continue;
    }
    const inside: (Html | string)[] = [];
    for (; i < pieces.length && pieces[i].range === range; i++) {
      inside.push(piece(pieces[i].text, pieces[i].scope));
    }
    out.push(<mark>{inside}</mark>);
  }
  return <>{out}</>;
}
