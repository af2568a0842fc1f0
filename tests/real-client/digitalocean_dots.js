// A whole provisioning flow through DigitalOcean's npm client dots-wrapper, unmodified, against
// neograde's DigitalOcean emulator: account, sizes, SSH key, create, running with a public
// address, reboot through its action, delete, gone, key deleted.
// Usage: node digitalocean_dots.js BASE_URL TOKEN   (NODE_PATH names the installed client)
'use strict';
const { createApiClient } = require('dots-wrapper');
const { step, ok, until, run } = require('./flow.js');

const [base, token] = process.argv.slice(2);
const dots = createApiClient({ token, endpoint: `${base}/v2`, requestTimeoutInMs: 10000 });

async function main() {
  step('account.getAccount');
  const { data: { account } } = await dots.account.getAccount();
  if (!account || account.status !== 'active') throw new Error(`account status ${account && account.status}`);
  ok(`account ${account.uuid} is active`);

  step('size.listSizes');
  const { data: { sizes } } = await dots.size.listSizes({ per_page: 200 });
  const gpu = sizes.find((s) => s.gpu_info && s.available && s.regions.length > 0);
  if (!gpu) throw new Error('no available GPU size');
  ok(`GPU size ${gpu.slug} in ${gpu.regions[0]} at $${gpu.price_hourly}/h`);

  step('sshKey.createSshKey');
  const { data: { ssh_key: key } } = await dots.sshKey.createSshKey({
    name: 'real-client-dots',
    public_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHlngHXef6Ji0H/0TmcVoQz5Zr1GqDb+2RccHAdN1sRn real-client',
  });
  // ssh-keygen -l -E md5 of this key
  if (!key.id || key.fingerprint !== '14:a2:7d:75:47:30:0c:0b:2a:6c:7d:e0:17:fa:65:cb') throw new Error(`key without id or with a wrong fingerprint: ${JSON.stringify(key)}`);
  ok(`key ${key.id} ${key.fingerprint}`);

  step('droplet.createDroplet');
  const { data: { droplet: created } } = await dots.droplet.createDroplet({
    name: 'real-client-dots', region: gpu.regions[0], size: gpu.slug, image: 'gpu-h100x1-base',
    ssh_keys: [key.fingerprint], tags: ['real-client'],
  });
  ok(`droplet ${created.id} created (${created.status})`);

  step('droplet.getDroplet (waiting for active with a public address)');
  const running = await until('active with a public address', async () => {
    const { data: { droplet } } = await dots.droplet.getDroplet({ droplet_id: created.id });
    const pub = (droplet.networks.v4 || []).find((n) => n.type === 'public');
    return droplet.status === 'active' && pub && pub.ip_address ? { droplet, ip: pub.ip_address } : null;
  });
  ok(`droplet ${running.droplet.id} active at ${running.ip}`);

  step('droplet.rebootDroplet');
  const { data: { action } } = await dots.droplet.rebootDroplet({ droplet_id: created.id });
  step('action.getAction (waiting for completed)');
  await until('reboot action completed', async () => {
    const { data: { action: a } } = await dots.action.getAction({ action_id: action.id });
    if (a.status === 'errored') throw new Error('reboot action errored');
    return a.status === 'completed';
  });
  ok(`reboot action ${action.id} completed`);

  step('droplet.deleteDroplet');
  const del = await dots.droplet.deleteDroplet({ droplet_id: created.id });
  if (del.status !== 204) throw new Error(`delete answered ${del.status}`);
  step('droplet.getDroplet (waiting for 404)');
  await until('gone', async () => {
    try {
      await dots.droplet.getDroplet({ droplet_id: created.id });
      return false;
    } catch (e) {
      if (e.response && e.response.status === 404) return true;
      throw e;
    }
  });
  ok(`droplet ${created.id} gone`);

  step('sshKey.destroySshKey');
  await dots.sshKey.destroySshKey({ ssh_key_id: key.id });
  ok(`key ${key.id} deleted`);
}

run(main, (e) => (e.response ? `HTTP ${e.response.status} ${JSON.stringify(e.response.data)}` : e.message));
