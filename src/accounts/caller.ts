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

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook on every route whose `auth` is not 'none'. */
    caller: Caller;
  }
}
