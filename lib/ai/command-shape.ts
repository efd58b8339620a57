/** What the documentation index's generator records of each `shroud` command (lib/ai never imports the CLI). */
export interface ShroudCommandShape {
  /** Its words: `wallet create`. */
  name: string;
  args: number;
  variadic: boolean;
  options: { flag: string; value: boolean }[];
}
