/**
 * The API key, kept for this browser tab's session only (sessionStorage): closing the tab
 * forgets it, and no cookie carries it, so no other site can make the browser send it.
 */
const KEY = 'sluice.apiKey';

export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  signIn: (key: string) => sessionStorage.setItem(KEY, key),
  signOut: () => sessionStorage.removeItem(KEY),
};
