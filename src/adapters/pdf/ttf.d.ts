// `import path from "x.ttf" with { type: "file" }` (font-files.ts): Bun gives the file's path as a string.
declare module "*.ttf" {
  const path: string;
  export default path;
}
