// The biggest files under a folder, through the official filesystem MCP server imported as `fs__*` tools.
// Run: npx codeact run examples/mcp-files.program.ts --mcp fs='npx -y @modelcontextprotocol/server-filesystem .'
const [root] = (await tools.fs__list_allowed_directories({})).content.split('\n').slice(1)
const tree = JSON.parse((await tools.fs__directory_tree({ path: root!, excludePatterns: ['node_modules', '.git', 'dist'] })).content)

type Entry = { name: string; type: 'file' | 'directory'; children?: Entry[] }
const files: string[] = []
const walk = (e: Entry, at: string): void => {
  if (e.type === 'file') files.push(`${at}/${e.name}`)
  for (const c of e.children ?? []) walk(c, `${at}/${e.name}`)
}
for (const e of tree as Entry[]) walk(e, root!)

// Independent lookups overlap; a failure of one (EACCES, ENOENT) does not stop the others.
const sizes = await Promise.all(
  files.slice(0, 200).map(async (path) => {
    try {
      const info = (await tools.fs__get_file_info({ path })).content
      return { path, size: Number(/size: (\d+)/.exec(info)?.[1] ?? 0) }
    } catch (e) {
      console.warn(`${path}: ${(e as ToolCallError).code}`)
      return { path, size: 0 }
    }
  }),
)
return sizes.sort((a, b) => b.size - a.size).slice(0, 5)
