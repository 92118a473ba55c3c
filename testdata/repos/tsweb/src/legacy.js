/** Old entry point. */
function legacyMain() {
  return 1;
}

class Widget {
  render() {}
}

module.exports = { legacyMain, Widget };
