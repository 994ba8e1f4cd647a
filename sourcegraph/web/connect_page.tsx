/**
 * The connect page: MCP client configuration generated for this site's own
 * origin (or the configured public URL), ready to copy. Tokens are never
 * written into it: the variants that authenticate read them from an
 * environment variable.
 *
 * @module
 */

import { type Html, Layout, type Viewer } from "./layout.tsx";
import { pluginContractUrl, siteUrl } from "../render/page_urls.ts";

/** The environment variable the examples read a token from. */
export const TOKEN_VARIABLE = "SOURCEGRAPH_TOKEN";

/** The configurations the page offers for the MCP endpoint at `endpoint`. */
export function clientConfigurations(endpoint: string): {
  json: string;
  jsonWithHeader: string;
  codexToml: string;
  claudeCommand: string;
  claudeCommandWithHeader: string;
} {
  const url = `${endpoint}?plugins=auto`;
  return {
    json: JSON.stringify({ mcpServers: { sourcegraph: { type: "http", url } } }, null, 2),
    jsonWithHeader: JSON.stringify(
      {
        mcpServers: {
          sourcegraph: {
            type: "http",
            url,
            headers: { Authorization: `Bearer \${${TOKEN_VARIABLE}}` },
          },
        },
      },
      null,
      2,
    ),
    codexToml:
      `[mcp_servers.sourcegraph]\nurl = "${url}"\nbearer_token_env_var = "${TOKEN_VARIABLE}"\n`,
    claudeCommand: `claude mcp add --transport http sourcegraph '${url}'`,
    claudeCommandWithHeader:
      `claude mcp add --transport http sourcegraph '${url}' --header "Authorization: Bearer $${TOKEN_VARIABLE}"`,
  };
}

function Snippet(props: { id: string; text: string }): Html {
  return <pre id={props.id} data-copy="">{props.text}</pre>;
}

// How an OAuth client signs in: this site's consent page, or the external issuer.
function SignInParagraph(props: { ownSignIn: boolean }): Html {
  return props.ownSignIn
    ? (
      <p>
        A client that implements MCP authorization needs only the URL (the first snippet): it
        registers itself and opens this site's sign-in page in your browser; sign in with a personal
        key or the service token and approve it. It then holds an access token for this endpoint
        only and renews it itself. A personal key's sign-in grants read access; the service token's
        also the operator's tools.
      </p>
    )
    : (
      <p>
        A client that implements MCP authorization needs only the URL (the first snippet): it signs
        you in with the authorization server this site trusts (its metadata name it), not with this
        site's own sign-in, and then holds an access token for this endpoint only. The token's{" "}
        <code>sourcegraph:read</code> scope grants read access, <code>sourcegraph:admin</code>{" "}
        also the operator's tools.
      </p>
    );
}

/**
 * The connect page; `ownSignIn` false when an external issuer signs clients
 * in instead of this site's consent page.
 */
export function ConnectPage(
  props: { viewer: Viewer; endpoint: string; ownSignIn?: boolean },
): Html {
  const configs = clientConfigurations(props.endpoint);
  return (
    <Layout title="Connect" viewer={props.viewer}>
      <h1>Connect an agent</h1>
      <p>
        The MCP endpoint of this site is <code>{props.endpoint}</code>{" "}
        (Streamable HTTP, stateless, JSON answers). Anonymous clients read public repositories.
      </p>
      <h2 id="oauth">Sign in with OAuth</h2>
      <SignInParagraph ownSignIn={props.ownSignIn !== false} />
      <p>
        Other clients send a personal key or the service token in{" "}
        <code>Authorization: Bearer …</code>. Keep the token in the <code>{TOKEN_VARIABLE}</code>
        {" "}
        environment variable: none of the snippets below holds one.
      </p>
      <h2>
        JSON (clients with an <code>mcpServers</code> file; OAuth clients need nothing more)
      </h2>
      <Snippet id="config-json" text={configs.json} />
      <h2>JSON with an Authorization header</h2>
      <Snippet id="config-json-header" text={configs.jsonWithHeader} />
      <h2>
        Codex (<code>~/.codex/config.toml</code>)
      </h2>
      <Snippet id="config-codex" text={configs.codexToml} />
      <h2>Claude Code</h2>
      <Snippet id="config-claude" text={configs.claudeCommand} />
      <Snippet id="config-claude-header" text={configs.claudeCommandWithHeader} />
      <h2>Plugins</h2>
      <p>
        The <code>plugins</code> parameter of the URL chooses which repository plugins enrich reads:
      </p>
      <ul>
        <li>
          <code>plugins=auto</code> (or none): the plugins the repository marks default-enabled;
        </li>
        <li>
          <code>plugins=off</code>: no plugin ever runs, whatever a tool call asks;
        </li>
        <li>
          <code>plugins=name-a,name-b</code>: those plugins, unless a tool call names its own.
        </li>
      </ul>
      <p>
        Plugin authors: the contract is at <a href={pluginContractUrl()}>{pluginContractUrl()}</a>.
      </p>
    </Layout>
  );
}

/**
 * What a browser sees at the MCP endpoint's address: that it is one, and
 * where the client configurations are.
 */
export function McpEndpointPage(props: { viewer: Viewer; endpoint: string }): Html {
  return (
    <Layout title="MCP endpoint" viewer={props.viewer}>
      <h1>This is an MCP endpoint</h1>
      <p>
        <code>{props.endpoint}</code>{" "}
        answers MCP clients (Streamable HTTP: JSON-RPC messages sent with POST), not browsers. To
        use it, add it to an agent: the <a href={siteUrl("connect")}>Connect page</a>{" "}
        has the configuration for common clients, ready to copy.
      </p>
    </Layout>
  );
}
