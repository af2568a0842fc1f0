// A whole provisioning flow through lambda-cloud-node-api (npm; an unofficial Node client of
// Lambda's Cloud API), unmodified, against neograde's Lambda emulator: instance types with
// capacity, SSH key added and listed, launch, running with a public address, listed, restart,
// terminate, gone, key deleted. The client takes the emulator through its own basePath option.
// Usage: node lambda_node_api.js BASE_URL API_KEY   (NODE_PATH names the installed client)
'use strict';
const { LambdaCloudAPI } = require('lambda-cloud-node-api');
const { step, ok, until, run } = require('./flow.js');

const [base, apiKey] = process.argv.slice(2);
const lambda = new LambdaCloudAPI({ apiKey, basePath: base });
const publicKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHlngHXef6Ji0H/0TmcVoQz5Zr1GqDb+2RccHAdN1sRn real-client';

async function main() {
  step('listInstanceTypes');
  const types = await lambda.listInstanceTypes();
  const offer = Object.values(types).find((t) => t.regions_with_capacity_available.length > 0);
  if (!offer) throw new Error('no instance type with capacity');
  const region = offer.regions_with_capacity_available[0].name;
  ok(`${offer.instance_type.name} in ${region} at ${offer.instance_type.price_cents_per_hour} cents/h`);

  step('addSSHKey');
  const key = await lambda.addSSHKey({ name: 'real-client-lambda', public_key: publicKey });
  if (!key.id || key.public_key !== publicKey) throw new Error(`key without id or another public key: ${JSON.stringify(key)}`);
  step('listSSHKeys');
  if (!(await lambda.listSSHKeys()).some((k) => k.id === key.id)) throw new Error(`key ${key.id} not listed`);
  ok(`key ${key.id} added and listed`);

  step('launchInstance');
  const { instance_ids: ids } = await lambda.launchInstance({
    region_name: region, instance_type_name: offer.instance_type.name, ssh_key_names: [key.name], name: 'real-client-lambda',
  });
  if (!ids || ids.length !== 1) throw new Error(`launch answered ids ${JSON.stringify(ids)}`);
  const id = ids[0];
  ok(`instance ${id} launched`);

  step('getRunningInstance (waiting for active with a public address)');
  const running = await until('active with a public address', async () => {
    const i = await lambda.getRunningInstance(id);
    return i.status === 'active' && i.ip ? i : null;
  });
  ok(`instance ${id} active at ${running.ip}`);

  step('listRunningInstances');
  if (!(await lambda.listRunningInstances()).some((i) => i.id === id)) throw new Error(`instance ${id} not listed`);
  ok(`instance ${id} listed`);

  step('restartInstances');
  const { restarted_instances: restarted } = await lambda.restartInstances([id]);
  if (!restarted.some((i) => i.id === id)) throw new Error(`restart answered ${JSON.stringify(restarted)}`);
  step('getRunningInstance (waiting for active again)');
  await until('active after the restart', async () => (await lambda.getRunningInstance(id)).status === 'active');
  ok(`instance ${id} restarted`);

  step('terminateInstances');
  const { terminated_instances: terminated } = await lambda.terminateInstances([id]);
  if (!terminated.some((i) => i.id === id)) throw new Error(`terminate answered ${JSON.stringify(terminated)}`);
  step('getRunningInstance (waiting for 404)');
  await until('gone', async () => {
    try {
      return (await lambda.getRunningInstance(id)).status === 'terminated';
    } catch (e) {
      if (e.error && e.error.code === 'global/object-does-not-exist') return true;
      throw e;
    }
  });
  step('listRunningInstances (waiting for it to leave the list)');
  await until('left the list', async () => !(await lambda.listRunningInstances()).some((i) => i.id === id && i.status !== 'terminated'));
  ok(`instance ${id} gone`);

  step('deleteSSHKey');
  await lambda.deleteSSHKey(key.id);
  if ((await lambda.listSSHKeys()).some((k) => k.id === key.id)) throw new Error(`key ${key.id} still listed`);
  ok(`key ${key.id} deleted`);
}

// The client rejects with Lambda's error body ({error: {code, message}}) or a fetch error.
run(main, (e) => (e.error ? `${e.error.code}: ${e.error.message}` : e.message || JSON.stringify(e)));
