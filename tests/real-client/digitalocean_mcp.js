// A whole provisioning flow through DigitalOcean's official MCP server (@digitalocean/mcp, a Go
// server wrapped in an npm package), unmodified, against neograde's DigitalOcean emulator, spoken
// to as an assistant would, over stdio MCP: account and balance, sizes, SSH key created and listed, droplet
// created, active with a public address, listed, rebooted through its action, deleted, gone, key
// deleted. The server takes the emulator through its own --digitalocean-api-endpoint option and
// the key in DIGITALOCEAN_API_TOKEN.
// Usage: node digitalocean_mcp.js BASE_URL TOKEN   (NODE_PATH names the installed packages)
'use strict';
const { step, ok, until, run } = require('./flow.js');
const mcp = require('./mcp_flow.js');

const [base, token] = process.argv.slice(2);
const publicKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHlngHXef6Ji0H/0TmcVoQz5Zr1GqDb+2RccHAdN1sRn real-client';

async function main() {
  step('spawn @digitalocean/mcp');
  await mcp.session({
    command: process.execPath,
    args: [require.resolve('@digitalocean/mcp/index.js'), '--services', 'accounts,droplets', '--digitalocean-api-endpoint', base],
    env: { DIGITALOCEAN_API_TOKEN: token },
  }, flow);
}

async function flow(server) {
  step('account-get-information');
  const account = await server.call('account-get-information');
  if (account.status !== 'active') throw new Error(`account status ${account.status}`);
  step('balance-get');
  const balance = await server.call('balance-get');
  if (balance.month_to_date_usage === undefined) throw new Error(`balance without month_to_date_usage: ${JSON.stringify(balance)}`);
  ok(`account ${account.uuid} is active, $${balance.month_to_date_usage} used this month`);

  step('size-list');
  const sizes = await server.call('size-list', { PerPage: 200 });
  // The server's answer leaves out gpu_info: a GPU size is known by its slug.
  const gpu = sizes.find((s) => s.slug.startsWith('gpu-') && s.available && s.regions.length > 0);
  if (!gpu) throw new Error(`no available GPU size in ${JSON.stringify(sizes)}`);
  ok(`GPU size ${gpu.slug} in ${gpu.regions[0]} at $${gpu.price_hourly}/h`);

  step('key-create');
  const key = await server.call('key-create', { Name: 'real-client-mcp', PublicKey: publicKey });
  // ssh-keygen -l -E md5 of this key
  if (!key.id || key.fingerprint !== '14:a2:7d:75:47:30:0c:0b:2a:6c:7d:e0:17:fa:65:cb') throw new Error(`key without id or with a wrong fingerprint: ${JSON.stringify(key)}`);
  step('key-list');
  const keys = await server.call('key-list', { PerPage: 200 });
  if (!keys.some((k) => k.id === key.id)) throw new Error(`key ${key.id} not listed: ${JSON.stringify(keys)}`);
  ok(`key ${key.id} ${key.fingerprint} created and listed`);

  step('droplet-create');
  const created = await server.call('droplet-create', {
    Name: 'real-client-mcp', Region: gpu.regions[0], Size: gpu.slug, ImageSlug: 'gpu-h100x1-base',
    SSHKeys: [key.fingerprint], Tags: ['real-client'],
  });
  if (!created.id) throw new Error(`no droplet id: ${JSON.stringify(created)}`);
  ok(`droplet ${created.id} created (${created.status})`);

  step('droplet-get (waiting for active with a public address)');
  const ip = await until('active with a public address', async () => {
    const d = await server.call('droplet-get', { ID: created.id });
    const pub = ((d.networks && d.networks.v4) || []).find((n) => n.type === 'public');
    return d.status === 'active' && pub && pub.ip_address;
  });
  ok(`droplet ${created.id} active at ${ip}`);

  step('droplet-list');
  const droplets = await server.call('droplet-list', { PerPage: 200 });
  if (!droplets.some((d) => d.id === created.id)) throw new Error(`droplet ${created.id} not listed`);
  ok(`droplet ${created.id} listed`);

  step('reboot-droplet');
  const action = await server.call('reboot-droplet', { ID: created.id });
  if (!action.id) throw new Error(`no action id: ${JSON.stringify(action)}`);
  step('action-get (waiting for completed)');
  await until('reboot action completed', async () => {
    const a = await server.call('action-get', { ID: action.id });
    if (a.status === 'errored') throw new Error('reboot action errored');
    return a.status === 'completed';
  });
  ok(`reboot action ${action.id} completed`);

  step('droplet-delete');
  await server.call('droplet-delete', { ID: created.id });
  step('droplet-get (waiting for 404)');
  await until('gone', async () => {
    try {
      await server.call('droplet-get', { ID: created.id });
      return false;
    } catch (e) {
      if (e instanceof mcp.ToolError && / 404 /.test(e.message)) return true;
      throw e;
    }
  });
  ok(`droplet ${created.id} gone`);

  step('key-delete');
  await server.call('key-delete', { ID: key.id });
  ok(`key ${key.id} deleted`);
}

run(main);
