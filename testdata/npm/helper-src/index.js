exports.helper = () => "help";
