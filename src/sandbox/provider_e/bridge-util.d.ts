// @sygna/bridge-util ships no types; the bridge reads it through the BridgeUtil interface in sygna.ts.
declare module "@sygna/bridge-util" {
  const util: unknown;
  export default util;
}
