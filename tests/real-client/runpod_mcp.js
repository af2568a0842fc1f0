// A whole provisioning flow through RunPod's official MCP server (@runpod/mcp-server), unmodified,
// against neograde's RunPod REST v2 emulator, spoken to as an assistant would, over stdio MCP: GPU
// types, the account's SSH keys (read, then the whole set replaced with this key added), pod
// created, RUNNING with its SSH endpoint (ssh.direct, agreeing with the 22/tcp runtime mapping),
// listed, restarted through pod-action, deleted, gone, the key set restored. The server reaches the
// emulator through its own RUNPOD_API_BASE_URL (the host before /v2, default https://api.runpod.io:
// dist/chunk-*.mjs sdkBase) and takes the key in RUNPOD_API_KEY; no request is rewritten.
// pod-action's stop and start are not called: the emulator plays restart alone (the spec's
// emulator notes).
// Usage: node runpod_mcp.js BASE_URL API_KEY   (BASE_URL ends in /v2; NODE_PATH names the install)
'use strict';
const path = require('path');
const { step, ok, until, run } = require('./flow.js');
const mcp = require('./mcp_flow.js');

const [base, key] = process.argv.slice(2);
const publicKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHlngHXef6Ji0H/0TmcVoQz5Zr1GqDb+2RccHAdN1sRn real-client';

// A running pod's SSH endpoint, where both places the v2 document states it agree.
function sshOf(pod) {
  if (pod.status !== 'RUNNING' || !pod.runtime || !pod.ssh || !pod.ssh.direct) return null;
  const d = pod.ssh.direct;
  const mapping = (pod.runtime.ports || []).find((p) => p.private === 22 && p.type === 'tcp');
  if (!mapping || !mapping.ip || !mapping.public) return null;
  if (d.host !== mapping.ip || d.port !== mapping.public || !d.username || d.command !== `ssh ${d.username}@${d.host} -p ${d.port}`)
    throw new Error(`ssh.direct ${JSON.stringify(d)} disagrees with the 22/tcp mapping ${JSON.stringify(mapping)}`);
  return d;
}

async function main() {
  step('spawn @runpod/mcp-server');
  await mcp.session({
    command: process.execPath,
    args: [path.join(path.dirname(require.resolve('@runpod/mcp-server/package.json')), 'dist', 'stdio.mjs')],
    env: { RUNPOD_API_KEY: key, RUNPOD_API_BASE_URL: base.replace(/\/v2\/?$/, '') },
  }, flow);
}

async function flow(server) {
  const names = new Set(server.tools);
  const needed = ['list-gpu-types', 'get-ssh-keys', 'update-ssh-keys', 'create-pod', 'get-pod', 'list-pods', 'pod-action', 'delete-pod'];
  const missing = needed.filter((n) => !names.has(n));
  if (missing.length) throw new Error(`the server lists no ${missing.join(', ')}`);

  step('list-gpu-types');
  const catalogue = await server.call('list-gpu-types');
  const gpus = Array.isArray(catalogue) ? catalogue : catalogue.gpus || [];
  let gpu;
  let dc;
  for (const g of gpus) {
    dc = (g.dataCenters || []).find((d) => d.availability && d.availability !== 'NONE');
    if (dc && g.price && g.price.secure) {
      gpu = g;
      break;
    }
  }
  if (!gpu) throw new Error(`no GPU type in stock: ${JSON.stringify(catalogue).slice(0, 500)}`);
  ok(`GPU type ${gpu.id} in ${dc.id} (${dc.availability}) at $${gpu.price.secure}/h`);

  step('get-ssh-keys');
  const before = (await server.call('get-ssh-keys')).keys;
  if (!Array.isArray(before)) throw new Error('get-ssh-keys answered no keys array');
  step('update-ssh-keys (the set with this key added)');
  const added = (await server.call('update-ssh-keys', { body: { keys: [...before, publicKey] } })).keys;
  step('get-ssh-keys (after the update)');
  const listed = (await server.call('get-ssh-keys')).keys;
  if (!added.includes(publicKey) || JSON.stringify(listed) !== JSON.stringify(added))
    throw new Error(`the key set reads ${JSON.stringify(listed)} after the update answered ${JSON.stringify(added)}`);
  ok(`SSH key registered (${before.length} before, ${listed.length} now)`);

  step('create-pod');
  const created = await server.call('create-pod', {
    body: {
      name: 'real-client-runpod-mcp', image: 'runpod/pytorch:1.0.2-cu1281-torch280-ubuntu2404',
      gpu: { id: gpu.id, count: 1 }, cloud: 'SECURE', dataCenterIds: [dc.id], ports: ['22/tcp'], startSsh: true,
    },
  });
  if (!created.id) throw new Error(`create-pod answered no id: ${JSON.stringify(created)}`);
  ok(`pod ${created.id} created (${created.status})`);

  const running = async (what) => {
    step(`get-pod (waiting for ${what})`);
    return until(what, async () => {
      const pod = await server.call('get-pod', { id: created.id });
      const ssh = sshOf(pod);
      return ssh ? { pod, ssh } : null;
    });
  };
  const first = await running('RUNNING with ssh.direct and a public 22/tcp port');
  ok(`pod ${created.id} RUNNING, SSH ${first.ssh.command}`);

  step('list-pods');
  const pods = await server.call('list-pods');
  const inList = (Array.isArray(pods) ? pods : pods.pods || []).find((p) => p.id === created.id);
  if (!inList || JSON.stringify(inList.ssh) !== JSON.stringify(first.pod.ssh)) throw new Error('list-pods does not show the pod as get-pod does');
  ok('list-pods shows the pod');

  step('pod-action restart');
  const restarted = await server.call('pod-action', { id: created.id, body: { action: 'restart' } });
  if (restarted.id !== created.id) throw new Error(`restart answered ${JSON.stringify(restarted)}`);
  const again = await running('RUNNING again after the restart');
  ok(`pod restarted (${restarted.status}), SSH ${again.ssh.command}`);

  step('delete-pod');
  await server.call('delete-pod', { id: created.id });
  step('get-pod (waiting for 404)');
  await until('gone', async () => {
    try {
      await server.call('get-pod', { id: created.id });
      return false;
    } catch (e) {
      if (e instanceof mcp.ToolError && /"status": 404\b/.test(e.message)) return true;
      throw e;
    }
  });
  ok(`pod ${created.id} gone`);

  step('update-ssh-keys (the set as it was)');
  const restored = (await server.call('update-ssh-keys', { body: { keys: before } })).keys;
  if (JSON.stringify(restored) !== JSON.stringify(before)) throw new Error(`keys not restored: ${JSON.stringify(restored)}`);
  ok('SSH keys restored');
}

run(main);
