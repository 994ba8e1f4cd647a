/**
 * An index builder held at a gate: the command the service runs waits until
 * the gate file exists, then runs the real builder (`builderCommand`) with
 * the same arguments and output, so a test sees a commit's index not built
 * yet for as long as it wants, then built for real.
 *
 * @module
 */

import {
  type BuilderCommand,
  builderCommand,
  type BuilderJob,
} from "../../sourcegraph/search/build/builder_command.ts";

/** The builder commands of a build held until `gate` exists. */
export function heldBuilder(gate: string): (job: BuilderJob) => BuilderCommand {
  return (job) => {
    const real = builderCommand(job);
    const script = `
      const gate = ${JSON.stringify(gate)};
      while (!(await Deno.stat(gate).then(() => true, () => false))) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const builder = new Deno.Command(Deno.execPath(), {
        args: ${JSON.stringify(real.args)},
        env: ${JSON.stringify(real.env)},
        stdin: "null",
        stdout: "inherit",
        stderr: "inherit",
      });
      Deno.exit((await builder.spawn().status).code);
    `;
    return { args: ["eval", script], env: real.env };
  };
}
