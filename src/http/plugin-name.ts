/**
 * Names a plugin for fastify (`app.pluginName`, the boot tree) before it is registered. An
 * unnamed one is looked for among the exports of every loaded CommonJS module (all of
 * `require.cache`, once per register and again when fastify makes its scope), then named by its
 * first lines: 25 registrations of the service's own plugins cost 20–35 ms of CPU a start in a
 * test process (docs/decisions.md, The test suite's time). Fastify reads the name from this
 * documented symbol (Server.md, pluginName); the plugin keeps its own scope.
 */
export function namedPlugin<T extends object>(name: string, plugin: T): T {
  return Object.assign(plugin, { [Symbol.for('fastify.display-name')]: name });
}
