// The same package as an OpenCode plugin: adds its skills folder at run time.
import path from "path";
import { fileURLToPath } from "url";

const skills = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../skills");

export const OwnEnvelopes = async () => ({
  config: async (config) => {
    config.skills = config.skills || {};
    config.skills.paths = [...(config.skills.paths || []), skills];
  },
});
