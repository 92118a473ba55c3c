// Server is a homonym of the Go server.Server in another repository.
export class Server {
  start(port: number): void {}
}

export default function createServer(): Server {
  return new Server();
}
