// A spinner on stderr while a call runs, only when stderr is a terminal: in pipes, CI logs and
// child processes it would be noise, and stdout is never touched so piped output stays clean.

const FRAMES = ["|", "/", "-", "\\"];

export async function withProgress<T>(label: string, work: () => Promise<T>, stream: NodeJS.WriteStream = process.stderr): Promise<T> {
  if (!stream.isTTY) return work();
  const started = Date.now();
  let frame = 0;
  const draw = () => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    stream.write(`\r${FRAMES[frame++ % FRAMES.length]} ${label} ${seconds}s`);
  };
  draw();
  const timer = setInterval(draw, 100);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    // Erase the spinner line so what follows starts on a clean line.
    stream.write("\r\u001b[2K");
  }
}
