const { Box } = require("@fx/values");

module.exports = function opened() {
  return new Box(1).open();
};
