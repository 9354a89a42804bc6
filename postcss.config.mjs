// Tailwind CSS 4 through PostCSS (the setup Next.js documents).
const config = {
  plugins: {
    "@tailwindcss/postcss": {},
  },
};

export default config;
