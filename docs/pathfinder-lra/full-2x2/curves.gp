# curves.svg and curves.png, written by attnzoo; rerun with `gnuplot curves.gp` in this folder.
$train << EOD
160256 0.7004637608227258 0.4986708765974441
320512 0.697340687826133 0.49885807707667736
480768 0.6947570429183543 0.495361328125
641024 0.6942427251190423 0.5005116813099042
801280 0.6939399614573096 0.5004056010383386
EOD
$val << EOD
160256 0.6949748834609986 0.5
320512 0.6943364904403686 0.5
480768 0.6934177673339844 0.5
641024 0.6932561622619629 0.5
801280 0.6946704284667968 0.5
EOD

set terminal svg size 1100,450 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'curves.svg'
set multiplot layout 1,2 title "full on pathfinder (runs/pf-lra-full-2x2)"
set grid
set xlabel 'examples seen'
set logscale x
set format x '%.0s%c'
set autoscale xfix
set ylabel 'loss'
set key top right Right noreverse
plot $train using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'training loss (mean since last log)', $val using 1:2 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation loss'
set ylabel 'accuracy'
set yrange [0.45:0.8]
set key top left Left reverse
plot $train using 1:3 with lines lw 2 lc rgb '#1f77b4' title 'training accuracy (mean since last log)', $val using 1:3 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation accuracy', 0.67 with lines dt 2 lw 1.5 lc rgb '#444444' title "markers' kNN (67%)", 0.5 with lines dt 3 lw 1.5 lc rgb '#444444' title "chance"
set autoscale y
unset multiplot
unset output
set terminal pngcairo size 1100,450 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'curves.png'
set multiplot layout 1,2 title "full on pathfinder (runs/pf-lra-full-2x2)"
set grid
set xlabel 'examples seen'
set logscale x
set format x '%.0s%c'
set autoscale xfix
set ylabel 'loss'
set key top right Right noreverse
plot $train using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'training loss (mean since last log)', $val using 1:2 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation loss'
set ylabel 'accuracy'
set yrange [0.45:0.8]
set key top left Left reverse
plot $train using 1:3 with lines lw 2 lc rgb '#1f77b4' title 'training accuracy (mean since last log)', $val using 1:3 with linespoints pt 7 lw 2 lc rgb '#d62728' title 'validation accuracy', 0.67 with lines dt 2 lw 1.5 lc rgb '#444444' title "markers' kNN (67%)", 0.5 with lines dt 3 lw 1.5 lc rgb '#444444' title "chance"
set autoscale y
unset multiplot
unset output
