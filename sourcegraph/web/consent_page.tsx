/**
 * The consent page of the authorization endpoint: which client asks, where
 * its answer goes, as whom and with which rights, and the two buttons. The
 * form carries the session's CSRF token and the request's parameters, which
 * are checked again when it is sent.
 *
 * @module
 */

import { type Html, Layout, type Viewer } from "./layout.tsx";
import { authorizeUrl } from "../render/page_urls.ts";

/** What each scope lets a client do, for people. */
const SCOPE_TEXT: Readonly<Record<string, string>> = {
  "sourcegraph:read": "read every repository you can read (code, history, search)",
  "sourcegraph:admin": "use the operator's tools (prepare) and the admin API",
};

// What the client will be able to do.
function ScopeList(props: { granted: string[] }): Html | null {
  if (props.granted.length === 0) return null;
  return (
    <>
      <p>It will be able to:</p>
      <ul class="scopes">
        {props.granted.map((scope) => (
          <li>
            <code>{scope}</code> {SCOPE_TEXT[scope] ?? ""}
          </li>
        ))}
      </ul>
    </>
  );
}

/** The consent page. */
export function ConsentPage(
  props: {
    viewer: Viewer;
    clientName: string;
    /** The client's id when it is the URL of its metadata document (else a registration's id). */
    clientId: string;
    /** Where the answer goes (the redirect URI's origin or scheme). */
    returnsTo: string;
    resource: string;
    granted: string[];
    /** Scopes asked for that this sign-in cannot grant. */
    withheld: string[];
    /** The request's parameters, sent back with the decision. */
    fields: Record<string, string>;
  },
): Html {
  return (
    <Layout title="Authorize a client" viewer={props.viewer}>
      <h1>Authorize {props.clientName === "" ? "an unnamed client" : props.clientName}</h1>
      <p>
        {props.clientId.startsWith("https://")
          ? (
            <>
              An application described by <code>{props.clientId}</code> as
            </>
          )
          : <>An application that registered itself as</>}{" "}
        <strong>{props.clientName === "" ? "(no name)" : props.clientName}</strong> asks to use{" "}
        <code>{props.resource}</code>{" "}
        as you ({props.viewer.label}). If you approve, it is sent back to{" "}
        <code>{props.returnsTo}</code> with a one-time code.
      </p>
      <ScopeList granted={props.granted} />
      {props.withheld.length === 0 ? null : (
        <p class="notice">
          Not granted (a personal key reads only): {props.withheld.join(", ")}
        </p>
      )}
      <form method="post" action={authorizeUrl()}>
        <input type="hidden" name="csrf" value={props.viewer.csrf ?? ""} />
        {Object.entries(props.fields).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <button type="submit" name="decision" value="approve" id="approve">Approve</button>{" "}
        <button type="submit" name="decision" value="deny" id="deny">Deny</button>
      </form>
      <p class="muted">
        Its access tokens last an hour; it renews them until it revokes them or the key you signed
        in with is revoked. Only approve applications you started yourself.
      </p>
    </Layout>
  );
}
