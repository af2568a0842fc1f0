// An MCP client for the flow scripts: spawns a provider's stdio MCP server, unmodified, and calls
// its tools through @modelcontextprotocol/sdk's Client and StdioClientTransport, as an assistant
// would. A tool's answer is its text content, parsed as JSON where it is JSON; a tool that answers
// isError throws with its text.
'use strict';
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');

class ToolError extends Error {}
exports.ToolError = ToolError;

// command/args: the server; env: what it needs beyond the SDK's default environment (its key,
// passed in the environment rather than on the command line, as the servers' READMEs advise).
exports.connect = async ({ command, args, env }) => {
  const transport = new StdioClientTransport({ command, args, env: { ...getDefaultEnvironment(), ...env }, stderr: 'pipe' });
  let log = '';
  transport.stderr.on('data', (d) => {
    log = (log + d).slice(-4000);
  });
  const client = new Client({ name: 'neograde-real-client', version: '1' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  return {
    tools: tools.map((t) => t.name),
    stderr: () => log,
    async call(name, args = {}) {
      const r = await client.callTool({ name, arguments: args });
      const text = (r.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('\n');
      if (r.isError) throw new ToolError(`${name}: ${text}`);
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    },
    close: () => client.close(),
  };
};

// Spawns the server, runs flow(server) and closes the server whatever happens; a failed flow shows
// the tail of what the server wrote to stderr.
exports.session = async (options, flow) => {
  const server = await exports.connect(options);
  try {
    require('./flow.js').ok(`server up with ${server.tools.length} tools`);
    await flow(server);
  } catch (e) {
    if (server.stderr()) console.error(`server stderr (tail):\n${server.stderr().slice(-1500)}`);
    throw e;
  } finally {
    await server.close();
  }
};
