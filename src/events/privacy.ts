/** A member named in an entry, as the presenters show them. */
interface NamedMember {
  userId?: string | null;
  email?: string | null;
  ip?: string | null;
}

/** The parts of a presented audit entry that can carry another member's email address. */
export interface EntryWithEmails {
  user?: string | null;
  email?: string | null;
  issuer?: NamedMember | null;
  subject?: NamedMember | null;
}

/**
 * An entry as a viewer who is not an ADMIN of its lock may see it (issue 15 §6): other members'
 * email addresses and network addresses (issue 28) are left out, the viewer's own are kept. ADMINs see everything; they manage
 * the members and their addresses anyway.
 */
export function withoutOthersEmails<T extends EntryWithEmails>(entry: T, viewerId: string): T {
  const shown = { ...entry };
  if (shown.email !== undefined && shown.user !== viewerId) delete shown.email;
  for (const key of ['issuer', 'subject'] as const) {
    const member = shown[key];
    if (member && (member.email !== undefined || member.ip !== undefined) && member.userId !== viewerId) {
      const { email: _hidden, ...rest } = member;
      shown[key] = (rest.ip === undefined ? rest : { ...rest, ip: null }) as T[typeof key];
    }
  }
  return shown;
}
