/** The gRPC status codes that ttrpc and NRI use (google.rpc.Code numbering). */
export const GRPC_OK = 0;
export const GRPC_CANCELLED = 1;
export const GRPC_UNKNOWN = 2;
export const GRPC_INVALID_ARGUMENT = 3;
export const GRPC_DEADLINE_EXCEEDED = 4;
export const GRPC_RESOURCE_EXHAUSTED = 8;
export const GRPC_UNIMPLEMENTED = 12;
