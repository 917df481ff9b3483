// Entry point of the `authsrv` executable (bin/authsrv and the single binary).
import { main } from './program.ts';

main(process.argv).then((code) => {
  process.exitCode = code;
});
