/** Who is making a request, once their token has been verified. */
export interface Caller {
  userId: string;
  /** The session of a service-issued token; null for third-party tokens (no session to end). */
  sessionId: string | null;
  /** 'direct' for users of the service itself, else the id of their application. */
  namespace: string;
  applicationId: string | null;
  email: string | null;
  emailVerified: boolean;
  telephone: string | null;
  telephoneVerified: boolean;
  displayName: string | null;
  /** The legacy RSA public key (Base64 DER SPKI), when the user has one. */
  publicKey: string | null;
}

/** The user columns a caller is made of. */
export interface CallerUser {
  id: string;
  namespace: string;
  email: string | null;
  email_verified: number;
  telephone: string | null;
  telephone_verified: number;
  display_name: string | null;
  public_key: string | null;
}

export function callerFromUser(user: CallerUser, sessionId: string | null, applicationId: string | null): Caller {
  return {
    userId: user.id,
    sessionId,
    namespace: user.namespace,
    applicationId,
    email: user.email,
    emailVerified: user.email_verified === 1,
    telephone: user.telephone,
    telephoneVerified: user.telephone_verified === 1,
    displayName: user.display_name,
    publicKey: user.public_key,
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook on every route whose `auth` is not 'none'. */
    caller: Caller;
  }
}
