// The `tollgate` command: `serve` (default), `migrate`, `config check`, `backup FILE`.
#if canImport(Glibc)
    import Glibc
#endif

let status = await CommandLineTool.run(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
