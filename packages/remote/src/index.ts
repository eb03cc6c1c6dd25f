/**
 * @umbel/remote — workers on other machines: the fleet (one engine over this machine and the
 * config file's SSH hosts), the SSH transport, the records of remote workers, and the RPC server
 * (`umbel rpc`) with its wire format. Depends on @umbel/core only; the composition root
 * (@umbel/runtime) wires it in.
 */
export type { RemoteEnv } from './env.js';
export { createFleet, type FleetOptions } from './fleet.js';
export { serveRpc, type ServeContext } from './serve.js';
export { sshTransport, type CallOptions, type SshTransportOptions, type Transport } from './ssh-transport.js';
export { CONTROL_PERSIST, controlDir, remoteCommand, sshArgv, sshEnv } from './ssh.js';
export { RemoteRecordSchema, recordsDir, type RemoteRecord } from './records.js';
export {
  encodeError,
  RemoteError,
  RPC_OPS,
  RPC_VERSION,
  RpcLineSchema,
  RpcRequestSchema,
  type RpcOp,
  type RpcRequest,
  type RpcResponse,
  type WireError,
} from './wire.js';
