// kivgraph's search gate for OpenCode: written by `kivgraph hook install --target opencode`,
// taken out by `kivgraph hook remove --target opencode`. Before OpenCode's grep or bash tool
// runs, the call goes to `kivgraph hook` in the shape Claude Code sends it; a refusal is
// thrown, because throwing is the only way tool.execute.before stops a tool. Anything else
// — no verdict, a failure, KIVGRAPH_DISABLE_HOOK=1 — lets the tool run.
import { spawnSync } from "node:child_process";

const KIVGRAPH = __KIVGRAPH__;
const TOOLS = { grep: "Grep", bash: "Bash" };

export const KivgraphSearchGate = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    const tool = TOOLS[input.tool];
    if (!tool || process.env.KIVGRAPH_DISABLE_HOOK === "1") return;
    const payload = JSON.stringify({
      hook_event_name: "PreToolUse",
      tool_name: tool,
      tool_input: output.args ?? {},
      cwd: directory,
    });
    const run = spawnSync(KIVGRAPH, ["hook"], { input: payload, encoding: "utf8", timeout: 5000 });
    if (run.status !== 0 || !run.stdout) return;
    let verdict;
    try {
      verdict = JSON.parse(run.stdout).hookSpecificOutput;
    } catch {
      return;
    }
    if (verdict?.permissionDecision === "deny") throw new Error(verdict.permissionDecisionReason);
  },
});
