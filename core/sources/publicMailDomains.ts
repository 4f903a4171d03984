/**
 * Mail providers anyone can sign up with: an address there says nothing about
 * the person's employer, so no `works_at` is inferred from it.
 */
const PUBLIC_MAIL_DOMAINS = new Set([
  'gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.com', 'hotmail.co.uk', 'hotmail.fr', 'live.com', 'msn.com',
  'yahoo.com', 'yahoo.co.uk', 'yahoo.fr', 'yahoo.de', 'ymail.com', 'rocketmail.com', 'icloud.com', 'me.com', 'mac.com',
  'aol.com', 'proton.me', 'protonmail.com', 'pm.me', 'gmx.com', 'gmx.de', 'gmx.net', 'web.de', 'mail.com', 'zoho.com',
  'yandex.com', 'yandex.ru', 'mail.ru', 'fastmail.com', 'hey.com', 'tutanota.com', 'tuta.io', 'qq.com', '163.com',
  '126.com', 'orange.fr', 'free.fr', 'laposte.net', 'comcast.net', 'att.net', 'verizon.net', 'btinternet.com', 'libero.it',
]);

export function isPublicMailDomain(domain: string): boolean {
  return PUBLIC_MAIL_DOMAINS.has(domain.toLowerCase());
}

// Second-level labels under a country code that are not the organization's name (acme.co.uk → acme).
const GENERIC_SECOND_LEVEL = new Set(['co', 'com', 'org', 'net', 'ac', 'gov', 'edu', 'ltd', 'plc']);

/** The organization a mail domain names: "mail.acme-labs.co.uk" → "Acme Labs". */
export function organizationNameOf(domain: string): string {
  const labels = domain.toLowerCase().split('.').filter(Boolean);
  labels.pop(); // top-level domain
  if (labels.length > 1 && GENERIC_SECOND_LEVEL.has(labels[labels.length - 1])) labels.pop();
  const label = labels[labels.length - 1] ?? domain;
  return label
    .split(/[-_]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(' ');
}
