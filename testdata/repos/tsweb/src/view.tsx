export function View(props: { title: string }) {
  return <h1>{props.title}</h1>;
}
