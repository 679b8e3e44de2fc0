/** A small HTTP client for black-box tests: real requests to the real server. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as-is, without JSON encoding. */
  rawBody?: string;
  accept?: string;
  version?: number;
  headers?: Record<string, string>;
  contentType?: string;
}

export class Api {
  constructor(readonly url: string) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.version) headers.accept = `application/vnd.doordeck.api-v${options.version}+json`;
    if (options.accept) headers.accept = options.accept;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    const response = await fetch(this.url + path, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('POST', path, options);
  }
  put<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('PUT', path, options);
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
}
