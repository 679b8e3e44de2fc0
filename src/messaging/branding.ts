/** How a message looks and who it comes from: the service's own, or an application's (decisions §2, §6). */
export interface Branding {
  senderEmail: string;
  senderName: string;
  primaryColour: string;
  secondaryColour: string;
  logoUrl: string | null;
  callToAction: { actionTarget: string; headline: string; actionText: string } | null;
}

export const DEFAULT_BRANDING: Branding = {
  senderEmail: 'no-reply@latchkey.local',
  senderName: 'Latchkey',
  primaryColour: '#00283C',
  secondaryColour: '#45BDD1',
  logoUrl: null,
  callToAction: null,
};

export interface EmailContent {
  subject: string;
  heading: string;
  paragraphs: string[];
  action?: { url: string; text: string };
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const COLOUR = /^#[0-9a-fA-F]{6}$/;
const safeColour = (value: string, fallback: string) => (COLOUR.test(value) ? value : fallback);

/** Renders a message as plain text and HTML in the sender's branding; every value is escaped. */
export function renderEmail(branding: Branding, content: EmailContent): { subject: string; text: string; html: string; from: { address: string; name: string } } {
  const primary = safeColour(branding.primaryColour, DEFAULT_BRANDING.primaryColour);
  const secondary = safeColour(branding.secondaryColour, DEFAULT_BRANDING.secondaryColour);
  const extra = branding.callToAction;
  const text = [
    content.heading,
    '',
    ...content.paragraphs.flatMap((p) => [p, '']),
    ...(content.action ? [`${content.action.text}: ${content.action.url}`, ''] : []),
    ...(extra ? [extra.headline, `${extra.actionText}: ${extra.actionTarget}`, ''] : []),
    `— ${branding.senderName}`,
  ].join('\n');
  const button = (url: string, label: string, colour: string) =>
    `<p><a href="${escapeHtml(url)}" style="background:${colour};color:#ffffff;padding:10px 18px;border-radius:4px;text-decoration:none">${escapeHtml(label)}</a></p>`;
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif;margin:0;padding:24px">',
    `<div style="border-top:6px solid ${primary};padding-top:16px">`,
    branding.logoUrl ? `<img src="${escapeHtml(branding.logoUrl)}" alt="${escapeHtml(branding.senderName)}" style="max-height:48px">` : '',
    `<h1 style="color:${primary}">${escapeHtml(content.heading)}</h1>`,
    ...content.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    content.action ? button(content.action.url, content.action.text, primary) : '',
    extra ? `<h2 style="color:${secondary}">${escapeHtml(extra.headline)}</h2>${button(extra.actionTarget, extra.actionText, secondary)}` : '',
    `<p style="color:#666666">${escapeHtml(branding.senderName)}</p>`,
    '</div></body></html>',
  ].join('');
  return { subject: content.subject, text, html, from: { address: branding.senderEmail, name: branding.senderName } };
}
