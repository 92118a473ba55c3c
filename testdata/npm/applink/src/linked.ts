import { Box, resize } from "@fx/values";

export function linked(): number {
  return resize(new Box(2).open(), 2);
}
