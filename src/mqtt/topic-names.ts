/**
 * MQTT topic-name rules that hold whatever the topics carry (MQTT 3.1.1 §4.7): what the transport
 * and the configuration check before a prefix is ever used in a subscription.
 */

/** A prefix made of non-empty levels without wildcards, e.g. `locks` or `acme/locks`. */
export function isValidTopicPrefix(prefix: string): boolean {
  return prefix.length > 0 && !prefix.startsWith('$') && prefix.split('/').every((level) => level.length > 0 && !/[+#\u0000]/.test(level));
}
