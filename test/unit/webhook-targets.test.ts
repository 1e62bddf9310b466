import assert from 'node:assert/strict';
import { BlockList, isIPv6 } from 'node:net';
import { test } from 'node:test';
import { checkWebhookUrl, isForbiddenAddress } from '../../src/webhooks/targets.ts';

type Expected = 'ok' | 'invalid_url' | 'forbidden_target';

// Every spelling a caller might use to reach this machine or its network, beside public ones that pass.
// The address parts are written in the forms the WHATWG URL parser accepts and normalizes.
const URLS: readonly (readonly [string, Expected])[] = [
  // IPv4 loopback, in every spelling the URL parser turns into 127.0.0.1
  ['https://127.0.0.1/', 'forbidden_target'],
  ['https://127.0.0.1:8443/hook', 'forbidden_target'],
  ['https://127.1/', 'forbidden_target'],
  ['https://127.0.1/', 'forbidden_target'],
  ['https://2130706433/', 'forbidden_target'],
  ['https://0x7f.1/', 'forbidden_target'],
  ['https://0x7f000001/', 'forbidden_target'],
  ['https://0x7F.0x0.0x0.0x1/', 'forbidden_target'],
  ['https://0177.0.0.1/', 'forbidden_target'],
  ['https://017700000001/', 'forbidden_target'],
  ['https://127.000.000.001/', 'forbidden_target'],
  ['https://127.0.0.1./', 'forbidden_target'],
  ['https://%31%32%37.0.0.1/', 'forbidden_target'],
  ['https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/', 'forbidden_target'],
  ['https://127.255.255.254/', 'forbidden_target'],
  // other IPv4 ranges
  ['https://0.0.0.0/', 'forbidden_target'],
  ['https://0/', 'forbidden_target'],
  ['https://0.1.2.3/', 'forbidden_target'],
  ['https://10.0.0.1/', 'forbidden_target'],
  ['https://167772161/', 'forbidden_target'],
  ['https://012.0.0.1/', 'forbidden_target'],
  ['https://10.255.255.255/', 'forbidden_target'],
  ['https://172.16.0.1/', 'forbidden_target'],
  ['https://172.31.255.254/', 'forbidden_target'],
  ['https://0xac.0x1f.1.1/', 'forbidden_target'],
  ['https://192.168.1.1/', 'forbidden_target'],
  ['https://192.168.0.1./', 'forbidden_target'],
  ['https://3232235777/', 'forbidden_target'],
  ['https://100.64.0.1/', 'forbidden_target'],
  ['https://100.127.255.254/', 'forbidden_target'],
  ['https://169.254.169.254/latest/meta-data/', 'forbidden_target'],
  ['https://2852039166/', 'forbidden_target'],
  ['https://0xa9.0xfe.0xa9.0xfe/', 'forbidden_target'],
  ['https://224.0.0.1/', 'forbidden_target'],
  ['https://239.255.255.250/', 'forbidden_target'],
  ['https://255.255.255.255/', 'forbidden_target'],
  ['https://4294967295/', 'forbidden_target'],
  ['https://240.0.0.1/', 'forbidden_target'],
  ['https://192.0.0.8/', 'forbidden_target'],
  ['https://192.0.2.10/', 'forbidden_target'],
  ['https://198.18.0.1/', 'forbidden_target'],
  ['https://198.51.100.7/', 'forbidden_target'],
  ['https://203.0.113.9/', 'forbidden_target'],
  // IPv6
  ['https://[::1]/', 'forbidden_target'],
  ['https://[0:0:0:0:0:0:0:1]/', 'forbidden_target'],
  ['https://[0000::0001]:443/', 'forbidden_target'],
  ['https://[::]/', 'forbidden_target'],
  ['https://[::ffff:127.0.0.1]/', 'forbidden_target'],
  ['https://[::ffff:7f00:1]/', 'forbidden_target'],
  ['https://[0:0:0:0:0:ffff:7f00:0001]/', 'forbidden_target'],
  ['https://[::FFFF:a9fe:a9fe]/', 'forbidden_target'],
  ['https://[::ffff:10.0.0.1]/', 'forbidden_target'],
  ['https://[::ffff:192.168.0.1]/', 'forbidden_target'],
  ['https://[::127.0.0.1]/', 'forbidden_target'],
  ['https://[::7f00:1]/', 'forbidden_target'],
  ['https://[::8.8.8.8]/', 'forbidden_target'],
  ['https://[64:ff9b::127.0.0.1]/', 'forbidden_target'],
  ['https://[64:ff9b::a9fe:a9fe]/', 'forbidden_target'],
  ['https://[64:ff9b:1::1]/', 'forbidden_target'],
  ['https://[2002:7f00:1::]/', 'forbidden_target'],
  ['https://[2002:c0a8:101::1]/', 'forbidden_target'],
  ['https://[fc00::1]/', 'forbidden_target'],
  ['https://[fd12:3456:789a::1]/', 'forbidden_target'],
  ['https://[fe80::1]/', 'forbidden_target'],
  ['https://[FE80::a:b:c:d]/', 'forbidden_target'],
  ['https://[febf:ffff::1]/', 'forbidden_target'],
  ['https://[fec0::1]/', 'forbidden_target'],
  ['https://[ff02::1]/', 'forbidden_target'],
  ['https://[ff05::1:3]/', 'forbidden_target'],
  ['https://[2001:db8::1]/', 'forbidden_target'],
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'forbidden_target'],
  ['https://[100::1]/', 'forbidden_target'],
  ['https://[4000::1]/', 'forbidden_target'],
  // names
  ['https://localhost/', 'forbidden_target'],
  ['https://localhost./', 'forbidden_target'],
  ['https://LOCALHOST:8443/', 'forbidden_target'],
  ['https://local%68ost/', 'forbidden_target'],
  ['https://\u24dbocalhost/', 'forbidden_target'],
  ['https://api.localhost/', 'forbidden_target'],
  ['https://a.b.localhost./', 'forbidden_target'],
  ['https://printer.local/', 'forbidden_target'],
  ['https://metadata.google.internal/', 'forbidden_target'],
  ['https://router.home.arpa/', 'forbidden_target'],
  ['https://intranet/', 'forbidden_target'],
  // http: by default
  ['http://hooks.example.com/svc', 'forbidden_target'],
  ['http://8.8.8.8/', 'forbidden_target'],
  // not a webhook URL at all
  ['', 'invalid_url'],
  ['hooks.example.com/svc', 'invalid_url'],
  ['/relative/path', 'invalid_url'],
  ['ftp://hooks.example.com/', 'invalid_url'],
  ['file:///etc/passwd', 'invalid_url'],
  ['gopher://127.0.0.1:6379/', 'invalid_url'],
  ['javascript:alert(1)', 'invalid_url'],
  ['https://user:secret@hooks.example.com/', 'invalid_url'],
  ['https://user@hooks.example.com/', 'invalid_url'],
  ['https://hooks.example.com/#fragment', 'invalid_url'],
  ['https://hooks.example.com/#', 'invalid_url'],
  ['https://hooks.example.com:0/', 'invalid_url'],
  ['https://1.2.3.4.5/', 'invalid_url'],
  ['https://0x100000000/', 'invalid_url'],
  ['https://256.0.0.1/', 'invalid_url'],
  ['https://[fe80::1%25eth0]/', 'invalid_url'],
  [' https://hooks.example.com/', 'invalid_url'],
  ['https://hooks.exa\nmple.com/', 'invalid_url'],
  ['https://hooks.exa\tmple.com/', 'invalid_url'],
  [`https://hooks.example.com/${'a'.repeat(2048)}`, 'invalid_url'],
  // a host that ends in more than one dot (an empty last label), however the dots are spelled
  ['https://127.0.0.1../hook', 'invalid_url'],
  ['https://example.com../x', 'invalid_url'],
  ['https://example.com.../x', 'invalid_url'],
  ['https://example.com.%2e/x', 'invalid_url'],
  ['https://example.com\u3002\u3002/x', 'invalid_url'],
  ['https://localhost../', 'invalid_url'],
  // public: accepted
  ['https://hooks.example.com/svc', 'ok'],
  ['https://hooks.example.com:8443/svc?token=abc', 'ok'],
  ['https://HOOKS.Example.COM./svc', 'ok'],
  ['https://example.com./x', 'ok'],
  ['https://8.8.8.8./', 'ok'],
  ['https://xn--bcher-kva.example/', 'ok'],
  ['https://8.8.8.8/', 'ok'],
  ['https://134744072/', 'ok'],
  ['https://1.1.1.1:443/hook', 'ok'],
  ['https://100.63.255.255/', 'ok'],
  ['https://100.128.0.0/', 'ok'],
  ['https://172.15.255.255/', 'ok'],
  ['https://172.32.0.1/', 'ok'],
  ['https://192.169.0.1/', 'ok'],
  ['https://169.253.255.255/', 'ok'],
  ['https://11.0.0.1/', 'ok'],
  ['https://223.255.255.254/', 'ok'],
  ['https://[2606:4700:4700::1111]/', 'ok'],
  ['https://[2001:4860:4860::8888]/', 'ok'],
  ['https://[::ffff:8.8.8.8]/', 'ok'],
  ['https://[64:ff9b::808:808]/', 'ok'],
  ['https://[2002:808:808::1]/', 'ok'],
  ['https://localhost.example.com/', 'ok'],
  ['https://mylocalhost.com/', 'ok'],
  [`https://hooks.example.com/${'a'.repeat(2048 - 'https://hooks.example.com/'.length)}`, 'ok'],
];

const outcome = (raw: string, allowPrivate: boolean): Expected => {
  const checked = checkWebhookUrl(raw, allowPrivate);
  return checked.ok ? 'ok' : checked.code;
};

test('every spelling of a local or private target is refused, and the public ones beside them pass', () => {
  assert.ok(URLS.length >= 60);
  const wrong = URLS.filter(([raw, expected]) => outcome(raw, false) !== expected).map(([raw, expected]) => `${raw}: expected ${expected}, got ${outcome(raw, false)}`);
  assert.deepEqual(wrong, []);
});

test('SVC_WEBHOOK_ALLOW_PRIVATE lifts every target rule and accepts http:, but a URL must still be a URL', () => {
  for (const [raw, expected] of URLS) {
    assert.equal(outcome(raw, true), expected === 'invalid_url' ? 'invalid_url' : 'ok', raw);
  }
  const checked = checkWebhookUrl('http://127.0.0.1:8080/hook', true);
  assert.ok(checked.ok);
  assert.equal(checked.url.href, 'http://127.0.0.1:8080/hook');
});

test('the URL returned is what would be connected to: the parser has normalized the host', () => {
  const checked = checkWebhookUrl('https://HOOKS.Example.com:443/a/../svc?x=1', false);
  assert.ok(checked.ok);
  assert.equal(checked.url.href, 'https://hooks.example.com/svc?x=1');
  const refused = checkWebhookUrl('https://0x7f.1/', false);
  assert.ok(!refused.ok);
  assert.match(refused.detail, /127\.0\.0\.1 is a loopback address/);
});

// An independent list of the same ranges, judged by Node's own BlockList. Two lists: an IPv6 rule
// also covers the IPv4 addresses it maps (::/3 holds ::ffff:0:0/96), and a BlockList reads an
// IPv4-mapped address by the IPv4 rules.
function blockList(family: 'ipv4' | 'ipv6', ranges: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of ranges) {
    const [address = '', bits = ''] = cidr.split('/');
    list.addSubnet(address, Number(bits), family);
  }
  return list;
}
const V4_LIST = blockList('ipv4', ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24', '192.0.2.0/24', '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/3']);
// Not global unicast (outside 2000::/3), and the special blocks inside it.
const V6_LIST = blockList('ipv6', ['::/3', '4000::/2', '8000::/1', '2001::/23', '2001:db8::/32', '3fff::/20']);

function secondOpinion(ip: string): boolean {
  if (!isIPv6(ip)) return V4_LIST.check(ip, 'ipv4');
  return new URL(`http://[${ip}]`).hostname.startsWith('[::ffff:') ? V4_LIST.check(ip, 'ipv6') : V6_LIST.check(ip, 'ipv6');
}

const randomByte = (): number => Math.floor(Math.random() * 256);

test('isForbiddenAddress agrees with net.BlockList on 20,000 random IPv4 and IPv6 addresses', () => {
  const disagreements: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    const ip = [randomByte(), randomByte(), randomByte(), randomByte()].join('.');
    if (isForbiddenAddress(ip) !== secondOpinion(ip)) disagreements.push(ip);
  }
  // IPv6 with a random first group; IPv4-mapped, NAT64 and 6to4 carriers are judged by what they carry.
  for (let i = 0; i < 10_000; i++) {
    const groups = Array.from({ length: 8 }, () => ((randomByte() << 8) | randomByte()).toString(16));
    if (i % 2 === 0) groups[0] = (0x2000 + Math.floor(Math.random() * 0x2000)).toString(16); // inside 2000::/3 half the time
    const ip = groups.join(':');
    if (['64:ff9b::', '2002:'].some((carrier) => new URL(`http://[${ip}]`).hostname.startsWith(`[${carrier}`))) continue;
    if (isForbiddenAddress(ip) !== secondOpinion(ip)) disagreements.push(ip);
  }
  assert.deepEqual(disagreements, []);
});

test('resolved addresses: each range at its edges, carriers by what they carry, anything unparseable refused', () => {
  const forbidden = ['127.0.0.1', '10.0.0.0', '172.31.255.255', '192.168.255.255', '100.64.0.0', '100.127.255.255', '169.254.0.1', '0.0.0.0', '224.0.0.0', '255.255.255.255', '::', '::1', 'fe80::1%eth0', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.1.2.3', '64:ff9b::7f00:1', '64:ff9b::10.0.0.1', '2002:7f00:0001::', '2002:a00:1::'];
  const allowed = ['8.8.8.8', '1.1.1.1', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0', '192.167.255.255', '192.169.0.0', '223.255.255.255', '2606:4700:4700::1111', '2a00:1450:4001:81c::200e', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::'];
  for (const ip of forbidden) assert.equal(isForbiddenAddress(ip), true, ip);
  for (const ip of allowed) assert.equal(isForbiddenAddress(ip), false, ip);
  // Where the BlockList can judge (no carrier of an IPv4 address but the mapped form, which it reads), it agrees.
  for (const ip of [...forbidden, ...allowed].filter((ip) => !/^(64:ff9b|2002):/.test(ip) && !ip.includes('%'))) {
    assert.equal(isForbiddenAddress(ip), secondOpinion(ip), `BlockList on ${ip}`);
  }
  for (const junk of ['', 'localhost', '127.1', '2130706433', '1.2.3.4.5', '::ffff::1', 'example.com']) assert.equal(isForbiddenAddress(junk), true, junk);
});
